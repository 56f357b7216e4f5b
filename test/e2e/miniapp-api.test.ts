import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { BOT_TOKEN, buttonLabels, linkedUser, manageWorld, nextBotText, type World } from "../kit/world";
import { signInitData } from "#src/miniapp/index";
import { parseStartPayload } from "#src/input/deep-link";
import { editsOf, PUBLIC_URL, ruleInChat } from "../kit/miniapp";

/** Init data for a user as Telegram signs it (with this bot's token unless another is given). */
function initDataFor(
  world: World,
  id: number,
  options: { token?: string; ageMs?: number; languageCode?: string } = {},
): string {
  return signInitData(
    { id, firstName: `User${id}`, languageCode: options.languageCode ?? "en" },
    options.token ?? BOT_TOKEN,
    new Date(world.app.deps.now() - (options.ageMs ?? 0)),
  );
}

function request(world: World, path: string, initData: string | null, method = "GET"): Promise<Response> {
  const headers: Record<string, string> = initData === null ? {} : { authorization: `tma ${initData}` };
  return Promise.resolve(world.app.http.request(path, { method, headers }));
}

async function dashboard(world: World, initData: string) {
  const response = await request(world, "/app/api/dashboard", initData);
  expect(response.status).toBe(200);
  return (await response.json()) as {
    lang: string;
    key: { state: string };
    sections: {
      balances: { trx: string; usdt: string };
      rules: { items: Array<{ id: string; status: string; canPause: boolean; canResume: boolean }> };
      orders: { items: unknown[] };
      unread: { count: number };
    };
  };
}

describe("the dashboard Mini App's API, with an https PUBLIC_URL", () => {
  let world: World;
  // Double taps dropped as deployed: two redraws of one card in a row must both happen.
  manageWorld((started) => (world = started), { env: { PUBLIC_URL }, doubleTapMs: 600 });

  it("shows the signer their balances and rules; Pause and Resume change the rule in the sandbox and edit the chat's rule card", async () => {
    const { accountId, user } = await linkedUser(world, 4601, { trx: "1234.5", usdt: "50" });
    const card = await ruleInChat(user);
    const initData = initDataFor(world, 4601);

    const shown = await dashboard(world, initData);
    expect(shown.key.state).toBe("linked");
    expect(shown.sections.balances.trx).toContain("1,234.5");
    expect(shown.sections.balances.usdt).toContain("50");
    expect(shown.sections.rules.items).toHaveLength(1);
    const rule = shown.sections.rules.items[0]!;
    expect(rule).toMatchObject({ status: "active", canPause: true, canResume: false });
    expect(shown.sections.unread.count).toBeGreaterThanOrEqual(0);

    const editsBefore = editsOf(world, 4601, card.messageId).length;
    const paused = await request(world, `/app/api/rules/${rule.id}/pause`, initData, "POST");
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({
      message: "Paused.",
      rule: { id: rule.id, status: "paused", canResume: true },
    });
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("paused");
    // The chat's open card of that rule now shows it paused, with Resume.
    const pauseEdits = editsOf(world, 4601, card.messageId);
    expect(pauseEdits.length).toBe(editsBefore + 1);
    expect(String(pauseEdits.at(-1)!.params.text)).toContain("paused");
    const redrawn = world.fake.messages(4601).find((message) => message.messageId === card.messageId)!;
    expect(buttonLabels(redrawn)).toContain("▶️ Resume");
    expect(buttonLabels(redrawn)).not.toContain("⏸ Pause");
    // The card's Resume works in the chat as ever.
    const again = await request(world, `/app/api/rules/${rule.id}/pause`, initData, "POST");
    expect(again.status).toBe(409);

    const resumed = await request(world, `/app/api/rules/${rule.id}/resume`, initData, "POST");
    expect(resumed.status).toBe(200);
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("active");
    const resumeEdits = editsOf(world, 4601, card.messageId);
    expect(resumeEdits.length).toBe(editsBefore + 2);
    expect(buttonLabels(world.fake.messages(4601).find((message) => message.messageId === card.messageId)!)).toContain(
      "⏸ Pause",
    );
    // No answer to a callback query the dashboard made on the user's behalf ever reached Telegram.
    expect(
      world.fake.calls.filter(
        (call) =>
          call.method === "answerCallbackQuery" && String(call.params.callback_query_id).startsWith("dashboard:"),
      ),
    ).toHaveLength(0);
  });

  it("the card's redraws are not the user's own updates: many Pause and Resume taps leave the chat's flood limit alone", async () => {
    const { user } = await linkedUser(world, 4605);
    const card = await ruleInChat(user);
    const initData = initDataFor(world, 4605);
    const [rule] = (await dashboard(world, initData)).sections.rules.items;
    // 24 redraws of the card within the flood window (20 updates in 10 s).
    for (let tap = 0; tap < 12; tap++) {
      expect((await request(world, `/app/api/rules/${rule!.id}/pause`, initData, "POST")).status).toBe(200);
      expect((await request(world, `/app/api/rules/${rule!.id}/resume`, initData, "POST")).status).toBe(200);
    }
    expect(editsOf(world, 4605, card.messageId).length).toBeGreaterThanOrEqual(24);
    expect(world.fake.messages(4605).some((message) => message.text?.includes("too fast"))).toBe(false);
    // The user's own next message is answered.
    user.send("/rules");
    await nextBotText(user, (text) => text.includes("Your automation rules"));
  });

  it("answers a second user with only their own data, and never acts on another user's rule", async () => {
    const first = await linkedUser(world, 4611, { trx: "900", usdt: "1" });
    await ruleInChat(first.user);
    await linkedUser(world, 4612, { trx: "77", usdt: "3" });
    const [firstRule] = (await dashboard(world, initDataFor(world, 4611))).sections.rules.items;

    const second = await dashboard(world, initDataFor(world, 4612));
    expect(second.sections.balances.trx).toContain("77");
    expect(second.sections.balances.trx).not.toContain("900");
    expect(second.sections.rules.items).toHaveLength(0);

    const foreign = await request(world, `/app/api/rules/${firstRule!.id}/pause`, initDataFor(world, 4612), "POST");
    expect(foreign.status).toBe(404);
    expect(world.sandbox.control.listRules(first.accountId)[0]!.status).toBe("active");
  });

  it("a key the marketplace refuses is marked broken, as the chat marks it, and the dashboard says to link a new one", async () => {
    const { apiKey } = await linkedUser(world, 4625);
    world.sandbox.control.revokeKey({ apiKey });
    const refused = (await (await request(world, "/app/api/dashboard", initDataFor(world, 4625))).json()) as {
      sections: { balances: { error: string } };
    };
    expect(refused.sections.balances.error).toContain("refused your API key");
    const after = await dashboard(world, initDataFor(world, 4625));
    expect(after.key.state).toBe("broken");
    expect(after.sections).toBeNull();
  });

  it("a key refused on the spending read, or on the rule list a Pause reads first, is marked broken the same way", async () => {
    const spender = await linkedUser(world, 4626);
    world.sandbox.control.revokeKey({ apiKey: spender.apiKey });
    const spending = await request(world, "/app/api/spending?days=7", initDataFor(world, 4626));
    expect(JSON.stringify(await spending.json())).toContain("refused your API key");
    expect((await dashboard(world, initDataFor(world, 4626))).key.state).toBe("broken");

    const pauser = await linkedUser(world, 4627);
    world.sandbox.control.revokeKey({ apiKey: pauser.apiKey });
    const paused = await request(
      world,
      "/app/api/rules/00000000-0000-4000-8000-000000000001/pause",
      initDataFor(world, 4627),
      "POST",
    );
    expect(paused.status).toBe(502);
    expect((await dashboard(world, initDataFor(world, 4627))).key.state).toBe("broken");
  });

  it("refuses tampered, expired, missing and foreign init data with 401 before reading anything", async () => {
    await linkedUser(world, 4621);
    const good = initDataFor(world, 4621);
    const tampered = good.replace(encodeURIComponent('"id":4621'), encodeURIComponent('"id":4622'));
    expect(tampered).not.toBe(good);
    const refused: Array<[string, string | null]> = [
      ["missing", null],
      ["tampered", tampered],
      ["expired", initDataFor(world, 4621, { ageMs: 61 * 60_000 })],
      ["foreign", initDataFor(world, 4621, { token: "987654321:AAEanotherbotanotherbotanotherbot00" })],
      ["unsigned", good.replace(/&hash=[0-9a-f]+/, "")],
    ];
    const sandboxCalls = world.sandboxRequests.length;
    for (const [what, initData] of refused) {
      for (const [path, method] of [
        ["/app/api/dashboard", "GET"],
        ["/app/api/spending?days=7", "GET"],
        ["/app/api/rules", "GET"],
        ["/app/api/rules/r1/pause", "POST"],
      ] as const) {
        const response = await request(world, path, initData, method);
        expect(response.status, `${what} ${path}`).toBe(401);
        expect(await response.json()).toMatchObject({ error: "unauthorized" });
      }
    }
    expect(world.sandboxRequests.length).toBe(sandboxCalls);
    // Plain "Bearer" or a cookie is no way in either.
    expect(
      (
        await world.app.http.request("/app/api/dashboard", {
          headers: { authorization: `Bearer ${good}`, cookie: `tma=${good}` },
        })
      ).status,
    ).toBe(401);
    // 59 minutes old is still good.
    expect((await request(world, "/app/api/dashboard", initDataFor(world, 4621, { ageMs: 59 * 60_000 }))).status).toBe(
      200,
    );
  });

  it("serves spending for 7 or 30 days, and the user's language", async () => {
    const { accountId } = await linkedUser(world, 4631, { trx: "500", usdt: "0" });
    world.sandbox.control.fillHistory({ accountId, days: 30 });
    const seven = (await (await request(world, "/app/api/spending?days=7", initDataFor(world, 4631))).json()) as {
      perDay: Array<{ trx: string }>;
      lines: string[];
    };
    expect(seven.perDay).toHaveLength(7);
    expect(seven.lines[0]).toMatch(/Spent/);
    const thirty = (await (await request(world, "/app/api/spending?days=30", initDataFor(world, 4631))).json()) as {
      perDay: Array<{ trx: string }>;
    };
    expect(thirty.perDay).toHaveLength(30);
    expect(thirty.perDay.some((day) => Number(day.trx) > 0)).toBe(true);
    expect((await request(world, "/app/api/spending?days=5", initDataFor(world, 4631))).status).toBe(400);
    // The dashboard never spends: Buy again is a link back into the chat's /buy card, as deep-link.ts reads it.
    const orders = (await dashboard(world, initDataFor(world, 4631))).sections.orders.items as Array<{
      buyAgain: string | null;
    }>;
    expect(orders.length).toBeGreaterThan(0);
    const link = new URL(orders.find((order) => order.buyAgain)!.buyAgain!);
    expect(`${link.origin}${link.pathname}`).toBe(`https://t.me/${world.app.bot.botInfo.username}`);
    const parsed = parseStartPayload(link.searchParams.get("start")!);
    expect(parsed).toMatchObject({ ok: true, link: { command: "buy" } });
    // A Russian Telegram app gets Russian words.
    const russian = await dashboard(world, initDataFor(world, 4631, { languageCode: "ru" }));
    expect(russian.lang).toBe("ru");
  });

  it("/dashboard and /start carry a Dashboard button opening the Mini App, and the menu button opens it", async () => {
    const user = world.user(4641);
    user.send("/dashboard");
    const reply = await user.nextMessage();
    const button = reply.replyMarkup!.inline_keyboard.flat().find((candidate) => candidate.text === "Dashboard") as
      { web_app?: { url: string } } | undefined;
    expect(button?.web_app?.url).toBe(`${PUBLIC_URL}/app`);
    user.send("/start");
    const start = await user.nextMessage();
    const startButton = start
      .replyMarkup!.inline_keyboard.flat()
      .find((candidate) => candidate.text === "Dashboard") as { web_app?: { url: string } } | undefined;
    expect(startButton?.web_app?.url).toBe(`${PUBLIC_URL}/app`);
    await expect
      .poll(() => world.fake.calls.filter((call) => call.ok && call.method === "setChatMenuButton").length)
      .toBe(1);
    const menu = (await (
      await fetch(`${world.telegram.apiRoot}/bot${BOT_TOKEN}/getChatMenuButton`, { method: "POST" })
    ).json()) as { result: { type: string; text: string; web_app: { url: string } } };
    expect(menu.result).toEqual({ type: "web_app", text: "Dashboard", web_app: { url: `${PUBLIC_URL}/app` } });
    // The page itself, served from this server with nothing from anywhere else.
    const page = await world.app.http.request("/app");
    expect(page.status).toBe(200);
    const html = await page.text();
    const src = /<script src="(\/app\/app\.js\?v=[0-9a-f]{16})"><\/script>/.exec(html)?.[1];
    expect(src).toBeDefined();
    // Its script by version: kept until the next build, gzipped for a client that takes it, the same bytes either way.
    const plain = await world.app.http.request(src!);
    const zipped = await world.app.http.request(src!, { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect([
      plain.headers.get("cache-control"),
      plain.headers.get("content-encoding"),
      zipped.headers.get("content-encoding"),
    ]).toEqual(["public, max-age=31536000, immutable", null, "gzip"]);
    const [plainBytes, zippedBytes] = [Buffer.from(await plain.arrayBuffer()), Buffer.from(await zipped.arrayBuffer())];
    expect(zippedBytes.length).toBeLessThan(plainBytes.length / 2);
    expect(gunzipSync(zippedBytes).equals(plainBytes)).toBe(true);
    // Without the version (an older page), it is checked again each time.
    expect((await world.app.http.request("/app/app.js")).headers.get("cache-control")).toBe("no-cache");
    expect(html).not.toMatch(/https?:\/\//);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(html).not.toContain(BOT_TOKEN);
  });
});

describe("the dashboard without an https PUBLIC_URL", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("/dashboard says what is needed; no Dashboard button, no menu button", async () => {
    const user = world.user(4651);
    user.send("/dashboard");
    const reply = await user.nextMessage();
    expect(reply.text).toContain("PUBLIC_URL");
    expect(reply.text).toContain("https");
    user.send("/start");
    const start = await user.nextMessage();
    expect(buttonLabels(start)).not.toContain("Dashboard");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(world.fake.calls.filter((call) => call.method === "setChatMenuButton")).toHaveLength(0);
  });

  it("keeps no record of the chat's rule cards: nothing could open the dashboard to redraw them", async () => {
    const { user } = await linkedUser(world, 4652);
    const card = await ruleInChat(user);
    expect(buttonLabels(card).length).toBeGreaterThan(0);
    await world.settled();
    expect(await world.app.db.selectFrom("open_rule_cards").selectAll().execute()).toEqual([]);
  });
});

describe("the dashboard's redraw of a card, with 'typing…' shown for slow replies as deployed", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL }, typing: { afterMs: 100, everyMs: 4_500 } });

  it("a slow marketplace read while the card is redrawn shows no 'typing…' in the chat: the user did nothing there", async () => {
    const { user } = await linkedUser(world, 4661);
    const card = await ruleInChat(user);
    const initData = initDataFor(world, 4661);
    const [rule] = (await dashboard(world, initData)).sections.rules.items;
    await world.settled();
    const typingBefore = world.fake.calls.filter((call) => call.method === "sendChatAction").length;
    // The dashboard's own read of the rules and the redraw's, each slower than the 100 ms of quiet.
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: "/automations", delayMs: 400, times: 2 });
    expect((await request(world, `/app/api/rules/${rule!.id}/pause`, initData, "POST")).status).toBe(200);
    expect(String(editsOf(world, 4661, card.messageId).at(-1)!.params.text)).toContain("paused");
    expect(world.fake.calls.filter((call) => call.method === "sendChatAction").length).toBe(typingBefore);
  });
});

describe("the dashboard's redraw of a card when the marketplace fails it", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL } });

  it("a rule read refused during the redraw says nothing in the chat: the dashboard already told the user, and the card updates at its next tap", async () => {
    const { accountId, user } = await linkedUser(world, 4671);
    const card = await ruleInChat(user);
    const initData = initDataFor(world, 4671);
    const [rule] = (await dashboard(world, initData)).sections.rules.items;
    await world.settled();
    const sentBefore = world.fake.calls.filter(
      (call) => call.method === "sendMessage" && Number(call.params.chat_id) === 4671,
    ).length;
    // The pause is held long enough for the redraw's read to be refused once the pause went through.
    world.sandbox.control.injectFault({ method: "POST", pathPrefix: `/automations/${rule!.id}/pause`, delayMs: 300 });
    const paused = request(world, `/app/api/rules/${rule!.id}/pause`, initData, "POST");
    await expect
      .poll(() => world.sandboxRequests.some((line) => line.startsWith("POST") && line.endsWith("/pause")))
      .toBe(true);
    world.sandbox.control.injectFault({ method: "GET", pathPrefix: "/automations", status: 503, times: 10 });
    expect((await paused).status).toBe(200);
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("paused");
    await world.settled();
    expect(
      world.sandboxRequests.filter((line) => line.startsWith("GET") && line.endsWith("/automations")).length,
    ).toBeGreaterThan(0);
    expect(
      world.fake.calls.filter((call) => call.method === "sendMessage" && Number(call.params.chat_id) === 4671).length,
    ).toBe(sentBefore);
    // The card is as it was; its next tap draws the rule as it is now.
    expect(buttonLabels(world.fake.messages(4671).find((message) => message.messageId === card.messageId)!)).toContain(
      "⏸ Pause",
    );
  });
});
