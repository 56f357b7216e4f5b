import { describe, expect, it } from "vitest";
import { ADDRESS_A, linkKey, manageWorld, type World } from "../kit/world";

describe("order input: grouped volumes, bounds per resource, a public quote with an unreadable key", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("/buy energy 65 000 1h ADDRESS reaches the confirmation card; /quote reads 65 000 too", async () => {
    const user = world.user(901);
    await linkKey(world, user, world.newAccount().apiKey);
    user.send(`/buy energy 65 000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    expect(card.text).toContain("Confirm your order");
    for (const word of ["Volume: 65,000", "Duration: 1h", ADDRESS_A]) expect(card.text).toContain(word);
    user.send("/quote energy 1 500 000 1h");
    expect((await user.nextMessage()).text).toContain("1,500,000 Energy for 1h");
  });

  it("a broken grouping is refused by name, with the accepted forms", async () => {
    const user = world.user(902);
    user.send("/quote energy 65 00 1h");
    const reply = await user.nextMessage();
    expect(reply.text).toContain("could not read “00”");
    expect(reply.text).toContain("65 000");
  });

  it("one-line arguments of zero, below zero or not quite an address get the explanation the guided step gives", async () => {
    const user = world.user(904);
    await linkKey(world, user, world.newAccount().apiKey);
    // Told, then asked for the volume again (the other arguments kept).
    user.send(`/buy energy 0 1h ${ADDRESS_A}`);
    expect((await user.nextMessage()).text).toMatch(/^The volume must be above zero\.\n\nHow much Energy\?/);
    user.send(`/buy energy -65000 1h ${ADDRESS_A}`);
    expect((await user.nextMessage()).text).toMatch(/^The volume cannot be negative\.\n\nHow much Energy\?/);
    user.send(`/quote energy 1.0005k 1h`);
    expect((await user.nextMessage()).text).toContain("whole number of units");
    user.send(`/buy energy 65000 1h ${ADDRESS_A.toLowerCase()}`);
    const address = (await user.nextMessage()).text!;
    expect(address).not.toContain("could not read");
    expect(address).not.toContain("Volumes are written");
    user.send(`/renewal ${ADDRESS_A} 0`);
    expect((await user.nextMessage()).text).toBe("The volume must be above zero.");
  });

  it("/buy 2m then Bandwidth: the volume is checked against bandwidth's bounds and asked again", async () => {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(903);
    await linkKey(world, user, apiKey);
    user.send("/buy 2m");
    expect((await user.nextMessage()).text).toContain("Which resource");
    user.press("Bandwidth");
    const again = await user.nextMessage();
    expect(again.text).toContain("out of bounds. Allowed: 1,000 – 1,000,000");
    expect(again.text).toContain("How much Bandwidth");
    user.send("500k");
    expect((await user.nextMessage()).text).toContain("how long");
    user.press("1h");
    expect((await user.nextMessage()).text).toContain("Which address");
    user.send(ADDRESS_A);
    const card = await user.nextMessage();
    for (const word of ["Confirm your order", "Resource: Bandwidth", "Volume: 500,000", ADDRESS_A])
      expect(card.text).toContain(word);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(0);
  });

  it("a volume given before the resource that fits only bandwidth is asked again when Energy is chosen", async () => {
    const user = world.user(904);
    await linkKey(world, user, world.newAccount().apiKey);
    user.send("/buy 15m 2000");
    expect((await user.nextMessage()).text).toContain("Which resource");
    user.press("Energy");
    const again = await user.nextMessage();
    // 2,000 fits bandwidth, not energy (10,000 – 5,000,000): asked again with energy's bounds
    expect(again.text).toContain("out of bounds. Allowed: 10,000 – 5,000,000");
    expect(again.text).toContain("How much Energy");
  });

  it("/quote with a key that can no longer be decrypted gives one reply: the public quote", async () => {
    const user = world.user(905);
    await linkKey(world, user, world.newAccount().apiKey);
    await world.app.db.updateTable("credentials").set({ key_id: "retired" }).where("telegram_id", "=", 905).execute();
    user.send("/quote energy 65k 1h");
    const quote = await user.nextMessage();
    expect(quote.text).toContain("Price quote");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(user.botMessages().filter((message) => message.messageId > quote.messageId)).toHaveLength(0);
    expect(user.botMessages().some((message) => /relink|link your key again/i.test(message.text ?? ""))).toBe(false);
    expect(world.logs()).toContain("quoting without it");
  });
});
