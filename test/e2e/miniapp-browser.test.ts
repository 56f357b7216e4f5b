import { describe, expect, it } from "vitest";
import { usePlaygroundPage } from "../kit/browser";
import { launchPath, signInitData } from "#src/miniapp/index";

const OUT = "test-output/miniapp";
const ADDRESS = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";

describe("the dashboard Mini App in a browser", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 1400, height: 900 },
    app: { perChatMinTimeMs: 0 },
  });
  const { pageErrors } = playground;

  /** The playground's JSON interface, as the page itself calls it. */
  async function play(path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(
      `${playground.app.url}${path}`,
      body === undefined
        ? {}
        : {
            method: "POST",
            headers: { "content-type": "application/json", origin: playground.app.url },
            body: JSON.stringify(body),
          },
    );
    expect(response.ok, path).toBe(true);
    return response.json();
  }

  it("opens beside the playground's chat as the current user sees it: balances and rules from the sandbox, Pause there redraws the chat's rule card", async () => {
    const { page } = playground;
    await page.goto(`${playground.app.url}/play`);
    await expect.poll(() => page.locator("#conn.live").count()).toBe(1);
    const key = (await page.locator("#demo-key").textContent())!;
    await page.click("#connect-key");
    await page
      .locator(".msg.bot", { hasText: key.slice(-4) })
      .first()
      .waitFor();
    await page.click("#panel-history");
    await play("/play/api/send", { userId: 1001, text: `/refill ${ADDRESS} 30k 65k 1h`, waitMs: 3000 });
    const confirm = page.locator(".msg.bot .kb", { hasText: "Confirm" }).last();
    await confirm.waitFor();
    await confirm.click();
    const created = page.locator(".msg.bot", { hasText: "Rule created" }).first();
    await created.waitFor();
    const short = /rule\s+([0-9a-f]{8})/.exec((await created.textContent())!)![1]!;

    // Every protocol message the frame posts to the playground, as Telegram's web client reads it.
    await page.evaluate(() => {
      const seen: unknown[] = [];
      (window as unknown as { __miniAppEvents: unknown[] }).__miniAppEvents = seen;
      window.addEventListener("message", (event) => {
        if (typeof event.data === "string") seen.push(JSON.parse(event.data));
      });
    });
    const posted = () => page.evaluate(() => (window as unknown as { __miniAppEvents: unknown[] }).__miniAppEvents);
    await page.click("#open-dashboard");
    const frame = page.frameLocator("#dashboard-frame");
    const balances = (await play("/play/api/sandbox")) as { balance: { trx: string } };
    const trx = Number(balances.balance.trx).toLocaleString("en-US", { maximumFractionDigits: 6 });
    await expect.poll(() => frame.locator("#balance-trx").textContent()).toContain(trx);
    const rule = frame.locator("li.rule", { hasText: short });
    await rule.locator("button", { hasText: "Pause" }).waitFor();
    await expect(rule.locator(".state").textContent()).resolves.toContain("active");

    // Drawn: the page tells the client so and asks for its viewport, which the playground answers with the frame's height.
    await expect
      .poll(posted)
      .toEqual(
        expect.arrayContaining([
          { eventType: "web_app_ready" },
          { eventType: "web_app_expand" },
          { eventType: "web_app_request_viewport" },
        ]),
      );
    const frameHeight = await page.locator("#dashboard-frame").evaluate((element) => element.clientHeight);
    const viewportHeight = () =>
      frame.locator("body").evaluate(() => document.documentElement.style.getPropertyValue("--tg-viewport-height"));
    await expect.poll(viewportHeight).toBe(`${frameHeight}px`);
    // A viewport_changed from the parent frame (the sheet dragged) resizes the page.
    await page.evaluate(() => {
      const target = (document.getElementById("dashboard-frame") as HTMLIFrameElement).contentWindow!;
      target.postMessage(
        JSON.stringify({
          eventType: "viewport_changed",
          eventData: { height: 432, width: 390, is_expanded: false, is_state_stable: true },
        }),
        window.location.origin,
      );
    });
    await expect.poll(viewportHeight).toBe("432px");
    await expect(frame.locator("body").evaluate((body) => getComputedStyle(body).minHeight)).resolves.toBe("432px");

    await rule.locator("button", { hasText: "Pause" }).click();
    await rule.locator("button", { hasText: "Resume" }).waitFor();
    await expect(rule.locator(".state").textContent()).resolves.toContain("paused");
    // The tap reached the parent frame as a haptic event of the protocol.
    expect(await posted()).toContainEqual({
      eventType: "web_app_trigger_haptic_feedback",
      eventData: { type: "impact", impact_style: "medium" },
    });
    // The chat's card, edited live by the bot: now paused, with Resume.
    const card = page.locator(".msg.bot", { hasText: short }).last();
    await card.locator(".kb", { hasText: "Resume" }).waitFor();
    await expect(card.textContent()).resolves.toContain("paused");
    await page.screenshot({ path: `${OUT}/playground-dashboard.png` });

    // Opening a rule asks Telegram for its Back button (the playground shows it over the frame); Back closes the rule.
    await rule.locator(".rule-head").click();
    await rule.locator(".hint", { hasText: "spent" }).waitFor();
    await page.locator("#dashboard-back:not([hidden])").waitFor();
    expect(await posted()).toContainEqual({ eventType: "web_app_setup_back_button", eventData: { is_visible: true } });
    await page.click("#dashboard-back");
    await expect.poll(() => rule.locator(".hint", { hasText: "spent" }).count()).toBe(0);
    await page.locator("#dashboard-back[hidden]").waitFor({ state: "attached" });
    // Resume there too: the card offers Pause again.
    await rule.locator("button", { hasText: "Resume" }).click();
    await rule.locator("button", { hasText: "Pause" }).waitFor();
    await card.locator(".kb", { hasText: "Pause" }).waitFor();
    await expect(card.textContent()).resolves.toContain("active");
    // In the playground, /dashboard points at the panel.
    const answer = (await play("/play/api/send", { userId: 1001, text: "/dashboard", waitMs: 2000 })) as {
      replies?: Array<{ message?: { text?: string } }>;
    };
    expect(answer.replies?.map((reply) => reply.message?.text ?? "").join("\n")).toContain("Open the dashboard");

    // Buy again and Buy are links back into the chat: a confirmation card, nothing spent.
    await frame.locator("#buy").click();
    await page
      .locator(".msg.bot", { hasText: /Which resource|resource/ })
      .last()
      .waitFor();
    expect(pageErrors).toEqual([]);
  });

  it("follows the theme, and says so when the init data is bad or missing", async () => {
    const { page, app } = playground;
    const token = app.playground!.token;
    const user = { id: 1001, firstName: "Alice", languageCode: "en" };
    await page.setViewportSize({ width: 390, height: 780 });
    // A new fragment alone does not load a page again: each launch starts from a blank page, as a Mini App opens.
    const open = async (path: string) => {
      await page.goto("about:blank");
      await page.goto(`${app.url}${path}`);
    };
    for (const theme of ["light", "dark"] as const) {
      await open(launchPath(user, token, new Date(), theme));
      await page.locator("li.rule").first().waitFor();
      await page.locator("#spending .bar").first().waitFor();
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const mode = await page.evaluate(() => document.documentElement.dataset.theme);
      expect(mode).toBe(theme);
      // Light: #f4f4f5 behind the cards; dark: #0f0f0f.
      expect(background).toBe(theme === "light" ? "rgb(244, 244, 245)" : "rgb(15, 15, 15)");
      await page.screenshot({ path: `${OUT}/dashboard-${theme}.png`, fullPage: true });
    }

    // Tampered: another user's id under the first one's signature.
    const good = launchPath(user, token, new Date(), "light");
    await open(
      `${good.replace(encodeURIComponent(encodeURIComponent('"id":1001')), encodeURIComponent(encodeURIComponent('"id":1002')))}`,
    );
    await expect(page.locator("#notice").textContent()).resolves.toContain("could not prove who you are");
    // Expired: signed two hours ago.
    await open(launchPath(user, token, new Date(Date.now() - 2 * 3_600_000), "light"));
    await expect(page.locator("#notice").textContent()).resolves.toContain("could not prove who you are");
    // Opened outside Telegram: no init data at all.
    await open("/app");
    await expect(page.locator("#notice").textContent()).resolves.toContain("Open the dashboard from the bot's chat");
    // The page's words follow the signer's language.
    await open(launchPath({ id: 1002, firstName: "Борис", languageCode: "ru" }, token, new Date(), "dark"));
    await expect.poll(() => page.locator("h1").textContent()).toBe("Панель");
    // A client that passes fewer launch parameters than the SDK's schema wants (only the signed data): still read, the server decides.
    await open(`/app#${new URLSearchParams({ tgWebAppData: signInitData(user, token, new Date()) }).toString()}`);
    await page.locator("li.rule").first().waitFor();
    expect(pageErrors.filter((error) => !/401/.test(error))).toEqual([]);
  });
});
