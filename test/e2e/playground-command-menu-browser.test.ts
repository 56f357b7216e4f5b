import { describe, expect, it } from "vitest";
import { usePlaygroundPage } from "../kit/browser";

const OUT = "test-output/command-menu";

/**
 * The composer's "/" menu filters itself with a request per keystroke. Enter must send what was
 * typed, unless the person chose an item with the arrow keys: a menu still showing the list of an
 * earlier prefix must not turn "/watches" into "/watch".
 */
describe("the playground's command menu in a browser", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 1280, height: 800 },
    app: { perChatMinTimeMs: 0 },
  });

  const sentTexts = () => playground.page.locator(".msg.user").allTextContents();
  const menuItems = () =>
    playground.page
      .locator("#command-menu button")
      .evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.command));

  it("Enter sends the text typed while the menu still shows an earlier prefix's list", async () => {
    await playground.page.goto(`${playground.app.url}/play`);
    await expect.poll(() => playground.page.locator("#conn.live").count()).toBe(1);
    const input = playground.page.locator("#composer-input");
    await expect.poll(() => input.isDisabled()).toBe(false);
    await input.click();
    await playground.page.keyboard.type("/wat");
    await expect.poll(menuItems).toEqual(["watch", "watches"]);

    // The lists for the next keystrokes are held back, as on a slow machine.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await playground.page.route("**/play/api/commands*", async (route) => {
      await held;
      await route.continue();
    });
    await playground.page.keyboard.type("ches");
    expect(await playground.page.locator("#command-menu").isHidden()).toBe(false);
    expect(await menuItems()).toEqual(["watch", "watches"]);
    await playground.page.keyboard.press("Enter");
    await playground.page.locator(".msg.user", { hasText: "/watches" }).waitFor();
    release();
    await playground.page.unrouteAll({ behavior: "wait" });
    const sent = await sentTexts();
    expect(sent.some((text) => text.includes("/watches"))).toBe(true);
    expect(sent.filter((text) => /\/watch(?!es)/.test(text))).toEqual([]);
  });

  it("an item chosen with the arrow keys is what Enter sends", async () => {
    const input = playground.page.locator("#composer-input");
    await input.click();
    await playground.page.keyboard.type("/wat");
    await expect.poll(menuItems).toEqual(["watch", "watches"]);
    await playground.page.keyboard.press("ArrowDown");
    await playground.page.keyboard.press("ArrowUp");
    await playground.page.keyboard.press("Enter");
    await expect.poll(async () => (await sentTexts()).filter((text) => /\/watch(?!es)/.test(text)).length).toBe(1);
    expect(await input.inputValue()).toBe("");
  });
});
