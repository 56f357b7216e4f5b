import { describe, expect, it } from "vitest";
import { usePlaygroundPage } from "../kit/browser";

const OUT = "test-output/emoji";
const FAMILY = "Noto Color Emoji";

/**
 * The playground's emoji on a machine with no emoji font (this one: Debian's Chromium, fonts for
 * text only): the page brings its own, served by the playground, in the subsets it needs.
 */
describe("the playground's emoji in a browser", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 1000, height: 700 },
    app: { perChatMinTimeMs: 0 },
  });
  const { pageErrors } = playground;

  it("loads Noto Color Emoji from its own origin once the chat shows emoji, and draws them in colour", async () => {
    const requested: string[] = [];
    playground.page.on("request", (request) => requested.push(request.url()));
    const origin = new URL(playground.app.url).origin;
    await playground.page.goto(`${playground.app.url}/play`);
    await expect.poll(() => playground.page.locator("#conn.live").count()).toBe(1);
    await playground.page.click("#add-user");
    await playground.page.fill("#composer-input", "/start");
    await playground.page.keyboard.press("Enter");
    // The welcome's main menu holds emoji (💬 Quote, ⚡ Buy …).
    const welcome = playground.page.locator(".msg.bot").last();
    await welcome.locator(".kb").first().waitFor();
    expect(await welcome.textContent()).toMatch(/\p{Extended_Pictographic}/u);

    // The browser fetched the family's face for the emoji it drew, once, and it loaded.
    const loadedFaces = () =>
      playground.page.evaluate((family) => {
        let loaded = 0;
        document.fonts.forEach(
          (face) => (loaded += face.family.replace(/["']/g, "") === family && face.status === "loaded" ? 1 : 0),
        );
        return loaded;
      }, FAMILY);
    await expect.poll(loadedFaces).toBe(1);
    expect(requested.filter((url) => url.includes("/play/fonts/"))).toEqual([
      `${origin}/play/fonts/noto-color-emoji.woff`,
    ]);
    // Nothing from another origin: the page, its script, style, fonts and API calls are all the playground's.
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:"))).toEqual([]);

    // Every element that shows an emoji (the chat, its buttons, the log of Bot API calls) has the family in its font stack.
    await playground.page.locator(".calls li", { hasText: "sendMessage" }).first().waitFor({ state: "attached" });
    const withoutFamily = await playground.page.evaluate((family) => {
      const missing: string[] = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const element = node.parentElement!;
        if (
          /\p{Extended_Pictographic}/u.test(node.textContent ?? "") &&
          !getComputedStyle(element).fontFamily.includes(family)
        )
          missing.push(`${element.tagName}.${element.className}: ${node.textContent!.slice(0, 30)}`);
      }
      return missing;
    }, FAMILY);
    expect(withoutFamily).toEqual([]);

    // Drawn with the page's font stack, an emoji is in colour (an empty box or a text glyph is not).
    const coloured = await playground.page.evaluate(async () => {
      const font = `32px ${getComputedStyle(document.body).fontFamily}`;
      await document.fonts.load(font, "🤖");
      const canvas = document.createElement("canvas");
      canvas.width = 48;
      canvas.height = 48;
      const context = canvas.getContext("2d")!;
      context.font = font;
      context.textBaseline = "top";
      context.fillText("🤖", 4, 4);
      const pixels = context.getImageData(0, 0, 48, 48).data;
      let colourful = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        const [r, g, b, a] = [pixels[i]!, pixels[i + 1]!, pixels[i + 2]!, pixels[i + 3]!];
        if (a > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 60) colourful += 1;
      }
      return colourful;
    });
    await playground.page.screenshot({ path: `${OUT}/emoji.png` });
    expect(coloured).toBeGreaterThan(50);
    expect(pageErrors).toEqual([]);
  });

  it("serves the font's rule (the package's emoji ranges, no other origin) and the font as a WOFF without the SVG table Chromium cannot draw", async () => {
    const css = await fetch(`${playground.app.url}/play/emoji.css`);
    expect(css.status).toBe(200);
    const rule = await css.text();
    expect(rule).toContain(`font-family: '${FAMILY}'`);
    // Emoji only: the regional indicators of flags, and never a letter.
    expect(rule).toMatch(/unicode-range: [^;]*U\+1f1e6-1f1ff/);
    expect(rule).not.toMatch(/U\+(?:41|61)[-,;]/);
    expect([...rule.matchAll(/url\(([^)]+)\)/g)].map((match) => match[1])).toEqual([
      "/play/fonts/noto-color-emoji.woff",
    ]);
    const font = await fetch(`${playground.app.url}/play/fonts/noto-color-emoji.woff`);
    expect(font.status).toBe(200);
    expect(font.headers.get("content-type")).toBe("font/woff");
    const bytes = Buffer.from(await font.arrayBuffer());
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("wOFF");
    const tags = Array.from({ length: bytes.readUInt16BE(12) }, (_, index) =>
      bytes.toString("latin1", 44 + index * 20, 48 + index * 20),
    );
    expect(tags).toEqual(expect.arrayContaining(["COLR", "CPAL", "cmap", "glyf"]));
    expect(tags).not.toContain("SVG ");
    expect(bytes.readUInt32BE(8)).toBe(bytes.length);
    expect(bytes.length).toBeLessThan(3_000_000);
    const page = await fetch(`${playground.app.url}/play`);
    expect(page.headers.get("content-security-policy")).toContain("font-src 'self'");
  });
});
