import { describe, expect, it } from "vitest";
import jsQR from "jsqr";
import { PNG } from "pngjs";
import QRCode from "qrcode";
import { linkKey, type World, manageWorld } from "../kit/world";
import { formatTrxForDisplay } from "#src/marketplace/money";
import type { ChatMessage } from "#src/telegram-fake/index";

function buttons(message: ChatMessage) {
  return message.replyMarkup?.inline_keyboard.flat() ?? [];
}

function labels(message: ChatMessage): string[] {
  return buttons(message).map((button) => button.text);
}

/** The ledger lines of a /transactions view (each starts with its UTC time). */
function ledgerLines(message: ChatMessage): string[] {
  return (message.text ?? "").split("\n").filter((line) => /^\d{4}-\d\d-\d\d \d\d:\d\d UTC · /.test(line));
}

function decodeQr(bytes: Uint8Array): string | null {
  const png = PNG.sync.read(Buffer.from(bytes));
  return (
    jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.byteLength), png.width, png.height)
      ?.data ?? null
  );
}

describe("/wallet, /topup, /transactions", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function linkedUser(id: number, balance = { trx: "1000", usdt: "50" }) {
    const account = world.newAccount(balance);
    const user = world.user(id);
    await linkKey(world, user, account.apiKey);
    return { ...account, user };
  }

  it("/wallet shows the balances the sandbox holds after a deposit, with Top up, Transactions and a refresh that edits in place", async () => {
    const { accountId, user } = await linkedUser(301);
    world.sandbox.control.creditDeposit({ accountId, currency: "TRX", amount: "1234.567891" });
    world.sandbox.control.creditDeposit({ accountId, currency: "USDT-TRC20", amount: "10.25" });
    const expected = world.sandbox.control.getBalance(accountId);

    user.send("/wallet");
    const wallet = await user.nextMessage();
    expect(wallet.text).toContain(`${formatTrxForDisplay(expected.trx)} TRX`);
    expect(wallet.text).toContain(`${formatTrxForDisplay(expected.usdtTrc20)} USDT`);
    expect(wallet.text).toContain("2,234.567891 TRX");
    expect(labels(wallet).some((label) => label.includes("Top up"))).toBe(true);
    expect(labels(wallet).some((label) => label.includes("Transactions"))).toBe(true);
    expect(buttons(wallet).find((button) => button.text.includes("Top up"))?.callback_data).toBe("m:topup");

    // unchanged: a refresh sends no edit Telegram would refuse ("message is not modified")
    user.press(/Refresh/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(world.fake.calls.some((call) => call.method === "editMessageText")).toBe(false);

    world.sandbox.control.creditDeposit({ accountId, currency: "TRX", amount: "0.5" });
    user.press(/Refresh/);
    const edit = await user.nextBotEvent();
    expect(edit.kind).toBe("edit");
    expect(edit.message.messageId).toBe(wallet.messageId);
    expect(edit.message.text).toContain(`${formatTrxForDisplay(world.sandbox.control.getBalance(accountId).trx)} TRX`);
    expect(edit.message.text).toContain("2,235.067891 TRX");

    // Transactions from the wallet opens the ledger
    user.press(/Transactions/);
    const ledger = await user.nextMessage();
    expect(ledger.text).toContain("Transactions");
    expect(ledgerLines(ledger).length).toBe(world.sandbox.control.ledger(accountId).length);
  });

  it("/topup sends the deposit address with a copy button, network, minimums, a warning and a PNG QR code of the address", async () => {
    const { apiKey, user } = await linkedUser(302);
    const response = await fetch(`${world.marketplaceUrl}/api/v1/wallet/deposit-address`, {
      headers: { "X-Api-Key": apiKey },
    });
    const deposit = (await response.json()) as {
      network: string;
      address: string;
      minimums: Array<{ currency: string; amount: string }>;
    };

    user.send("/topup");
    const details = await user.nextMessage();
    expect(details.text).toContain(deposit.address);
    expect(details.html).toContain(`<code>${deposit.address}</code>`);
    expect(details.text).toContain(deposit.network);
    for (const minimum of deposit.minimums)
      expect(details.text).toContain(`${minimum.currency}: ${minimum.amount} ${minimum.currency}`);
    expect(details.text).toContain("Send only USDT or TRX to this address, over the TRON network (TRC20)");
    expect(buttons(details).find((button) => button.copy_text)?.copy_text?.text).toBe(deposit.address);

    const photo = await user.nextMessage();
    expect(photo.photo).toBeDefined();
    const bytes = photo.photo!.bytes;
    expect(
      Buffer.from(bytes.subarray(0, 8)).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
    ).toBe(true);
    expect(decodeQr(bytes)).toBe(deposit.address);
    // the same picture qrcode draws for the address
    const reference = await QRCode.toBuffer(deposit.address, {
      type: "png",
      errorCorrectionLevel: "M",
      margin: 2,
      scale: 8,
    });
    expect(Buffer.from(bytes).equals(reference)).toBe(true);
    expect(photo.caption).toContain(deposit.address);

    // the Top up button (here under /wallet) runs the same, fetching again
    user.send("/wallet");
    await user.nextMessage();
    const before = world.fake.calls.filter((call) => call.method === "sendPhoto").length;
    user.press(/Top up/);
    expect((await user.nextMessage()).text).toContain(deposit.address);
    await user.nextMessage();
    expect(world.fake.calls.filter((call) => call.method === "sendPhoto").length).toBe(before + 1);

    // fetched from the marketplace every time: while it is down, /topup says so instead of a stale address
    world.sandbox.control.injectFault({ pathPrefix: "/api/v1/wallet/deposit-address", status: 503, times: 50 });
    user.send("/topup");
    const down = await user.nextMessage();
    expect(down.text).toContain("not answering");
    expect(down.text).not.toContain(deposit.address);
    world.sandbox.control.clearFaults();
  });

  it("/transactions pages through 25 entries newest first, and the currency and type filters change the list", async () => {
    // no opening balance, so the ledger holds exactly what is made here
    const { accountId, user } = await linkedUser(303, { trx: "0", usdt: "0" });
    for (let i = 1; i <= 15; i += 1)
      world.sandbox.control.creditDeposit({ accountId, currency: "TRX", amount: `${i}` });
    for (let i = 1; i <= 8; i += 1)
      world.sandbox.control.creditDeposit({ accountId, currency: "USDT-TRC20", amount: `${i}.5` });
    world.sandbox.control.setBalance({ accountId, trx: "100" });
    world.sandbox.control.setBalance({ accountId, trx: "90" });
    const ledger = world.sandbox.control.ledger(accountId);
    expect(ledger.length).toBe(25);

    user.send("/transactions");
    const first = await user.nextMessage();
    expect(first.text).toContain("page 1 of 3, 25 in all");
    const page1 = ledgerLines(first);
    expect(page1.length).toBe(10);
    // newest first: the two adjustments, then the USDT deposits from the last one down
    expect(page1[0]).toContain("Adjustment");
    expect(page1[0]).toContain("-10 TRX");
    expect(page1[1]).toContain("Adjustment");
    expect(page1[2]).toContain("Deposit · +8.5 USDT-TRC20 · Completed");
    expect(labels(first)).toContain("Next ▶️");
    expect(labels(first).some((label) => label.includes("Prev"))).toBe(false);
    // the sandbox's deposits carry made-up tx ids: named as such, with no explorer link that would lead nowhere
    expect(page1[2]).toContain("sandbox transaction");
    expect(first.entities?.some((entity) => entity.type === "text_link")).toBe(false);

    user.press(/Next/);
    const second = await user.nextBotEvent();
    expect(second.kind).toBe("edit");
    expect(second.message.text).toContain("page 2 of 3");
    expect(ledgerLines(second.message).length).toBe(10);
    user.press(/Next/);
    const third = await user.nextBotEvent();
    expect(third.message.text).toContain("page 3 of 3");
    const page3 = ledgerLines(third.message);
    expect(page3.length).toBe(5);
    expect(page3.at(-1)).toContain("+1 TRX");
    expect(labels(third.message).some((label) => label.includes("Next"))).toBe(false);
    user.press(/Prev/);
    expect((await user.nextBotEvent()).message.text).toContain("page 2 of 3");

    // currency filter
    user.press(/^(• )?USDT-TRC20$/);
    const usdt = await user.nextBotEvent();
    expect(usdt.message.messageId).toBe(first.messageId);
    expect(usdt.message.text).toContain("page 1 of 1, 8 in all");
    expect(usdt.message.text).toContain("Filter: USDT-TRC20");
    const usdtLines = ledgerLines(usdt.message);
    expect(usdtLines.length).toBe(8);
    for (const line of usdtLines) expect(line).toContain("USDT-TRC20");

    user.press(/^(• )?TRX$/);
    const trx = await user.nextBotEvent();
    expect(trx.message.text).toContain("17 in all");
    for (const line of ledgerLines(trx.message)) expect(line).toMatch(/ TRX · /);

    // type filter: the types seen on the page are offered
    expect(labels(trx.message)).toEqual(expect.arrayContaining(["Adjustment", "Deposit"]));
    user.press(/^(• )?Adjustment$/);
    const adjustments = await user.nextBotEvent();
    expect(adjustments.message.text).toContain("2 in all");
    expect(adjustments.message.text).toContain("Filter: TRX · Adjustment");
    const adjustmentLines = ledgerLines(adjustments.message);
    expect(adjustmentLines.length).toBe(2);
    for (const line of adjustmentLines) expect(line).toContain("Adjustment");
    expect(labels(adjustments.message)).toContain("• Adjustment");

    user.press(/^(• )?All currencies$/);
    const allCurrencies = await user.nextBotEvent();
    expect(allCurrencies.message.text).toContain("2 in all");
    user.press(/^(• )?All types$/);
    expect((await user.nextBotEvent()).message.text).toContain("page 1 of 3, 25 in all");

    // every callback stays within Telegram's 64 bytes
    for (const call of world.fake.calls.filter((c) => c.method === "editMessageText" || c.method === "sendMessage")) {
      const markup = call.params.reply_markup as
        { inline_keyboard?: Array<Array<{ callback_data?: string }>> } | string | undefined;
      const parsed =
        typeof markup === "string"
          ? (JSON.parse(markup) as { inline_keyboard?: Array<Array<{ callback_data?: string }>> })
          : markup;
      for (const button of parsed?.inline_keyboard?.flat() ?? [])
        expect(Buffer.byteLength(button.callback_data ?? "")).toBeLessThanOrEqual(64);
    }
  });

  it("an empty ledger says how to top up", async () => {
    const { user } = await linkedUser(304, { trx: "0", usdt: "0" });
    user.send("/transactions");
    const empty = await user.nextMessage();
    expect(empty.text).toContain("No transactions yet");
    expect(empty.text).toContain("/topup");
    expect(labels(empty).some((label) => label.includes("Top up"))).toBe(true);
  });

  it("without a key, /wallet asks to connect one", async () => {
    const user = world.user(305);
    user.send("/wallet");
    expect((await user.nextMessage()).text).toContain("/connect");
  });
});
