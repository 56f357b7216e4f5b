import { describe, expect, it } from "vitest";
import { usePlaygroundPage } from "../kit/browser";

const OUT = "test-output/playground-group";

/** Team alerts offline in the playground's page: the Team group panel, the chat picker, the group as a chat. */
describe("the playground's team group in a browser", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 1200, height: 800 },
    app: { perChatMinTimeMs: 0 },
  });

  it("makes a group with the simulated users, picks it through the chat picker and shows it as a chat", async () => {
    const { page } = playground;
    await page.goto(`${playground.app.url}/play`);
    await expect.poll(() => page.locator("#conn.live").count()).toBe(1);
    await page.click("#add-user");
    await expect.poll(() => page.locator("#chat-sub").textContent()).toContain("id 2001");
    const key = (await page.locator("#demo-key").textContent())!;
    await page.click("#connect-key");
    await page
      .locator(".msg.bot", { hasText: key.slice(-4) })
      .first()
      .waitFor();

    await page.click("#create-group");
    await expect.poll(() => page.locator("#chat-select option").count()).toBe(2);
    await page.fill("#composer-input", "/group");
    await page.keyboard.press("Enter");
    await page.locator(".msg.bot", { hasText: "Team alerts" }).waitFor();
    const pick = page.locator("#reply-keyboard .kb", { hasText: "Choose a group: Team 1" });
    await pick.waitFor();
    await pick.click();
    await page.locator(".msg.bot", { hasText: "are copied to Team 1" }).waitFor();
    await expect.poll(() => page.locator("#reply-keyboard").isHidden()).toBe(true);

    const groupValue = await page.locator("#chat-select option").nth(1).getAttribute("value");
    await page.selectOption("#chat-select", groupValue!);
    await expect.poll(() => page.locator("#chat-sub").textContent()).toContain("group Team 1");
    await page.fill("#composer-input", "/group");
    await page.keyboard.press("Enter");
    const answer = page.locator(".msg.bot", { hasText: "Alerts of these members come here" });
    await answer.waitFor();
    await expect(answer.textContent()).resolves.toContain("User 2001");
    await page.screenshot({ path: `${OUT}/group-chat.png` });
    expect(playground.pageErrors).toEqual([]);
  });
});
