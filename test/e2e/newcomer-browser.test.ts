import { describe, expect, it } from "vitest";
import { usePlaygroundPage, waitForToast } from "../kit/browser";

const OUT = "test-output/newcomer";
const ADDRESS = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";

/** The playground's side panel as a newcomer sees it: what each control is, what it will do, which mode is on. */
describe("the playground's panel in a browser, for a newcomer", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 1200, height: 1000 },
    app: { perChatMinTimeMs: 0 },
  });
  const { pageErrors } = playground;

  const send = async (text: string) => {
    const before = await playground.page.locator(".msg").count();
    await playground.page.fill("#composer-input", text);
    await playground.page.keyboard.press("Enter");
    await playground.page.waitForFunction((n) => document.querySelectorAll(".msg").length > n, before);
  };
  const buy = async () => {
    const placedBefore = await playground.page.locator(".msg.bot", { hasText: "Order placed" }).count();
    await send(`/buy energy 65000 1h ${ADDRESS}`);
    const confirm = playground.page.locator(".msg.bot .kb", { hasText: "Confirm" }).last();
    await confirm.waitFor();
    await confirm.click();
    await expect
      .poll(() => playground.page.locator(".msg.bot", { hasText: "Order placed" }).count())
      .toBe(placedBefore + 1);
  };
  const filledAlerts = () => playground.page.locator(".msg.bot", { hasText: /Order [0-9a-f]{8}\S* filled/ });

  it("orders wait for the panel, which says so; the switch makes them settle by themselves; the filled alert asks for no payment", async () => {
    await playground.page.goto(`${playground.app.url}/play`);
    await expect.poll(() => playground.page.locator("#conn.live").count()).toBe(1);
    await playground.page.click("#add-user");
    await expect.poll(() => playground.page.locator("#chat-sub").textContent()).toContain("id 2001");
    await expect
      .poll(() => playground.page.locator("#settle-mode").textContent())
      .toContain("Mode: orders wait for you");
    expect(await playground.page.isChecked("#settle-auto")).toBe(false);

    await playground.page.click("#connect-key");
    const key = (await playground.page.locator("#demo-key").textContent())!;
    await playground.page
      .locator(".msg.bot", { hasText: key.slice(-4) })
      .first()
      .waitFor();

    await buy();
    await expect
      .poll(() => playground.page.locator("#produces-settle").textContent())
      .toContain("1 Created order(s) settle now");
    // Longer than a standalone sandbox waits before it settles by itself: the order is still waiting.
    await playground.page.waitForTimeout(4500);
    await expect.poll(() => playground.page.locator("#orders .status-Created").count()).toBe(1);
    expect(await filledAlerts().count()).toBe(0);
    await playground.page.click("#panel-settle");
    await waitForToast(playground.page, "Settled 1");
    const alert = filledAlerts().first();
    await alert.waitFor({ timeout: 10_000 });
    const text = (await alert.textContent())!;
    expect(text).toContain("use the delegated resource instead of burning TRX");
    expect(text).toContain("Transaction: sandbox transaction");
    expect(text).not.toMatch(/send your usdt/i);
    expect(await alert.locator("a").count()).toBe(0);

    await playground.page.fill("#settle-seconds", "1");
    await playground.page.check("#settle-auto");
    await expect
      .poll(() => playground.page.locator("#settle-mode").textContent())
      .toContain("Mode: orders settle by themselves 1 s after they are placed");
    await buy();
    await expect.poll(() => filledAlerts().count(), { timeout: 10_000 }).toBe(2);
    await playground.page.screenshot({ path: `${OUT}/1-settle-mode.png` });
    await playground.page.uncheck("#settle-auto");
    await expect
      .poll(() => playground.page.locator("#settle-mode").textContent())
      .toContain("Mode: orders wait for you");
    expect(pageErrors).toEqual([]);
  });

  it("/topup's copy button shows one copy icon, the playground's own", async () => {
    await send("/topup");
    const copyButton = playground.page.locator(".msg.bot .kb", { hasText: "Copy address" }).last();
    await copyButton.waitFor();
    expect(((await copyButton.textContent()) ?? "").match(/📋/g)).toHaveLength(1);
    expect(
      await playground.page
        .locator(".msg.bot", { hasText: "Send only USDT or TRX to this address, over the TRON network (TRC20)" })
        .count(),
    ).toBeGreaterThan(0);
  });

  it("the panel's controls say they simulate the marketplace and what they will produce; the pause alert names its figures once", async () => {
    for (const id of [
      "panel-deposit",
      "panel-settle",
      "panel-fail",
      "panel-rental-ends",
      "panel-fire",
      "panel-pause",
      "panel-notify",
      "panel-send-webhook",
    ]) {
      expect(await playground.page.locator(`#${id}`).textContent()).toMatch(/^Simulate: /);
    }
    await playground.page.fill("#deposit-amount", "100.5");
    const balance = /Balance: (\S+) TRX/.exec((await playground.page.locator("#balance").textContent())!)![1]!;
    // Written as the chat writes amounts: thousands grouped (the balance after the deposit is over 999 TRX).
    expect(balance).toMatch(/^\d{1,3}(,\d{3})*(\.\d+)?$/);
    await expect
      .poll(() => playground.page.locator("#produces-deposit").textContent())
      .toMatch(new RegExp(`^→ balance ${balance.replace(".", "\\.")} → \\d{1,3},\\d{3}(\\.\\d+)? TRX`));
    await playground.page.selectOption("#fail-mode", "sync");
    await expect
      .poll(() => playground.page.locator("#produces-fail").textContent())
      .toContain("refused at once (502); nothing is charged");
    await playground.page.selectOption("#fail-mode", "async");
    await expect
      .poll(() => playground.page.locator("#produces-fail").textContent())
      .toContain("settles as Failed; its TRX is refunded");

    await send(`/refill ${ADDRESS} 30k 65k 1h`);
    const confirm = playground.page.locator(".msg.bot .kb", { hasText: "Confirm" }).last();
    await confirm.waitFor();
    await confirm.click();
    await expect
      .poll(() => playground.page.locator("#rule-select option", { hasText: "active" }).count(), { timeout: 10_000 })
      .toBe(1);
    const produces = (await playground.page.locator("#produces-pause").textContent())!;
    expect(produces).toContain(
      "paused (System), as if the balance could not cover its next delivery, although it holds",
    );
    await playground.page.screenshot({ path: `${OUT}/2-panel.png`, fullPage: true });

    await playground.page.click("#panel-pause");
    await waitForToast(playground.page, "Rule paused");
    const paused = playground.page.locator(".msg.bot", { hasText: "paused by the marketplace" }).last();
    await paused.waitFor({ timeout: 10_000 });
    const text = (await paused.textContent())!;
    expect(text).toMatch(
      /Why: not enough balance\. The marketplace saw [\d,.]+ TRX; the next delivery costs [\d,.]+ TRX\./,
    );
    expect(text.match(/not enough balance|cannot cover/g)).toHaveLength(1);
    expect(await paused.locator(".kb", { hasText: "Resume" }).count()).toBe(1);
    await expect.poll(() => playground.page.locator("#produces-pause").textContent()).toBe("");
    await expect
      .poll(() => playground.page.locator("#produces-fire").textContent())
      .toContain("is paused: only an active rule fires or pauses");
    expect(pageErrors).toEqual([]);
  });
});
