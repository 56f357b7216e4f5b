import { describe, expect, it } from "vitest";
import { ADDRESS_A, ADDRESS_B, ADDRESS_C, linkKey, manageWorld, type World } from "../kit/world";
import { recentAddresses, touchAddress } from "#src/db/repos/addresses";
import type { ChatMessage } from "#src/telegram-fake/index";

const ADDRESSES = [ADDRESS_A, ADDRESS_B, ADDRESS_C];

function buttons(message: ChatMessage) {
  return (message.replyMarkup?.inline_keyboard ?? [])
    .flat()
    .map((button) => ({ text: button.text, data: (button as { callback_data?: string }).callback_data ?? "" }));
}

/** Callback data stays short and never carries an address (they travel as short references). */
function expectShortOpaqueData(message: ChatMessage): void {
  for (const { data } of buttons(message)) {
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    for (const address of ADDRESSES) expect(data).not.toContain(address);
  }
}

describe("/addresses: the address book with labels", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function userWithBook(id: number) {
    const user = world.user(id);
    await linkKey(world, user, world.newAccount().apiKey);
    // used in this order: A long ago, then C, then B most recently
    const now = Date.now();
    await touchAddress(world.app.db, id, ADDRESS_A, now - 3_000);
    await touchAddress(world.app.db, id, ADDRESS_C, now - 2_000);
    await touchAddress(world.app.db, id, ADDRESS_B, now - 1_000);
    return user;
  }

  it("lists the last used first; a label is set from the list, escaped, refused when too long, and shown on the address step", async () => {
    const user = await userWithBook(701);
    user.send("/addresses");
    const list = await user.nextMessage();
    const order = ADDRESSES.map((address) => ({ address, at: list.text!.indexOf(address) })).sort(
      (a, b) => a.at - b.at,
    );
    expect(order.map((entry) => entry.address)).toEqual([ADDRESS_B, ADDRESS_C, ADDRESS_A]);
    expect(order.every((entry) => entry.at >= 0)).toBe(true);
    expectShortOpaqueData(list);

    user.press(/✏️ TNPe…YqeL/);
    const ask = await user.nextMessage();
    expect(ask.text).toContain(`Send a label for ${ADDRESS_A}`);
    user.send("x".repeat(33));
    expect((await user.nextMessage()).text).toContain("1 to 32 characters");
    user.send("  <Treasury & Co>  ");
    expect((await user.nextMessage()).text).toContain("Label saved");
    const labelled = await user.nextMessage();
    expect(labelled.text).toContain(`<Treasury & Co> ${ADDRESS_A}`);
    expect(labelled.html).toContain("<b>&lt;Treasury &amp; Co&gt;</b>");
    expect(buttons(labelled).map((button) => button.text)).toContain("✏️ <Treasury & Co> (TNPe…YqeL)");
    expect((await recentAddresses(world.app.db, 701, 5)).find((row) => row.address === ADDRESS_A)?.label).toBe(
      "<Treasury & Co>",
    );

    user.send("/buy energy 65k 1h");
    const step = await user.nextMessage();
    expect(step.text).toContain("Which address");
    expect(buttons(step).map((button) => button.text)).toContain("<Treasury & Co> (TNPe…YqeL)");
    expectShortOpaqueData(step);
    user.press("<Treasury & Co> (TNPe…YqeL)");
    const card = await user.nextMessage();
    expect(card.text).toContain("Confirm your order");
    expect(card.text).toContain(ADDRESS_A);
  });

  it("- removes a label; /cancel leaves the label step without a change", async () => {
    const user = await userWithBook(702);
    user.send("/addresses");
    await user.nextMessage();
    user.press(/✏️ TR7N…Lj6t/);
    await user.nextMessage();
    user.send("Hot wallet");
    await user.nextMessage();
    const list = await user.nextMessage();
    expect(list.text).toContain(`Hot wallet ${ADDRESS_B}`);
    user.press(/✏️ Hot wallet/);
    await user.nextMessage();
    user.send("/cancel");
    expect((await user.nextMessage()).text).toContain("Cancelled");
    expect((await recentAddresses(world.app.db, 702, 5)).find((row) => row.address === ADDRESS_B)?.label).toBe(
      "Hot wallet",
    );
    user.press(/✏️ Hot wallet/);
    await user.nextMessage();
    user.send("-");
    expect((await user.nextMessage()).text).toContain("Label removed");
    expect((await user.nextMessage()).text).not.toContain("Hot wallet");
    expect((await recentAddresses(world.app.db, 702, 5)).find((row) => row.address === ADDRESS_B)?.label).toBeNull();
  });

  it("🗑 removes an address and edits the list in place", async () => {
    const user = await userWithBook(703);
    user.send("/addresses");
    const list = await user.nextMessage();
    user.press(/🗑 TLa2…YjU7/);
    const edited = await user.nextBotEvent();
    expect(edited.kind).toBe("edit");
    expect(edited.message.messageId).toBe(list.messageId);
    expect(edited.message.text).not.toContain(ADDRESS_C);
    expect(edited.message.text).toContain(ADDRESS_A);
    expect(
      buttons(edited.message)
        .map((button) => button.text)
        .some((text) => text.includes("TLa2")),
    ).toBe(false);
    expect((await recentAddresses(world.app.db, 703, 5)).map((row) => row.address)).toEqual([ADDRESS_B, ADDRESS_A]);
  });
});
