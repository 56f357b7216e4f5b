import { describe, expect, it } from "vitest";
import { parseTelegramHtml } from "#src/telegram-fake/index";

function description(html: string): string {
  const result = parseTelegramHtml(html);
  if (result.ok) throw new Error(`expected ${JSON.stringify(html)} to be refused`);
  return result.description;
}

describe("parseTelegramHtml accepts what Telegram accepts", () => {
  it("turns nested tags into entities with UTF-16 offsets", () => {
    const result = parseTelegramHtml("⚡ <b>Energy <i>65 000</i></b> for <code>TNPe…</code>");
    expect(result).toEqual({
      ok: true,
      text: "⚡ Energy 65 000 for TNPe…",
      entities: [
        { type: "bold", offset: 2, length: 13 },
        { type: "italic", offset: 9, length: 6 },
        { type: "code", offset: 20, length: 5 },
      ],
    });
  });

  it("decodes the four named entities and numeric ones", () => {
    const result = parseTelegramHtml("a &lt;b&gt; &amp; &quot;c&quot; &#9889; &#x26A1;");
    expect(result).toMatchObject({ ok: true, text: 'a <b> & "c" ⚡ ⚡' });
  });

  it("knows links, spoilers, blockquotes, pre with a language and a bare >", () => {
    const html =
      '<a href="https://tronscan.org/#/tx/abc?x=1&amp;y=2">tx</a> <span class="tg-spoiler">s</span> ' +
      '<tg-spoiler>t</tg-spoiler> <blockquote expandable>q</blockquote> <pre><code class="language-json">{}</code></pre> 2 > 1';
    const result = parseTelegramHtml(html);
    expect(result).toMatchObject({ ok: true, text: "tx s t q {} 2 > 1" });
    if (!result.ok) return;
    expect(result.entities).toEqual([
      { type: "text_link", offset: 0, length: 2, url: "https://tronscan.org/#/tx/abc?x=1&y=2" },
      { type: "spoiler", offset: 3, length: 1 },
      { type: "spoiler", offset: 5, length: 1 },
      { type: "expandable_blockquote", offset: 7, length: 1 },
      { type: "pre", offset: 9, length: 2, language: "json" },
    ]);
  });

  it("accepts upper-case tags and the short end tag </>", () => {
    expect(parseTelegramHtml("<B>x</B> <i>y</>")).toMatchObject({ ok: true, text: "x y" });
  });
});

describe("parseTelegramHtml refuses what Telegram refuses", () => {
  it("refuses a bare &", () => {
    expect(description("Tom & Jerry")).toMatch(/^Bad Request: can't parse entities: Unescaped "&" at byte offset 4/);
  });

  it("refuses an entity Telegram does not know", () => {
    expect(description("&nbsp;")).toMatch(/^Bad Request: can't parse entities: /);
  });

  it("refuses a bare <", () => {
    expect(description("1 < 2")).toBe(`Bad Request: can't parse entities: Unsupported start tag "" at byte offset 2`);
    expect(description("x <2 y")).toBe(`Bad Request: can't parse entities: Unsupported start tag "2" at byte offset 2`);
    expect(description("x <2")).toBe("Bad Request: can't parse entities: Unclosed start tag at byte offset 2");
  });

  it("refuses unknown tags such as <br> and <p>", () => {
    expect(description("a<br>b")).toBe(
      `Bad Request: can't parse entities: Unsupported start tag "br" at byte offset 1`,
    );
    expect(description("<p>x</p>")).toContain(`Unsupported start tag "p"`);
  });

  it("counts the byte offset in UTF-8", () => {
    expect(description("⚡<br>")).toContain("at byte offset 3");
  });

  it("refuses an unclosed tag", () => {
    expect(description("<b>bold")).toBe(
      `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`,
    );
    expect(description("<b")).toBe("Bad Request: can't parse entities: Unclosed start tag at byte offset 0");
  });

  it("refuses badly nested and unexpected end tags", () => {
    expect(description("<b><i>x</b></i>")).toBe(
      `Bad Request: can't parse entities: Unmatched end tag at byte offset 7, expected "</i>", found "</b>"`,
    );
    expect(description("x</b>")).toBe("Bad Request: can't parse entities: Unexpected end tag at byte offset 1");
  });

  it("refuses a span without the spoiler class and attributes without values", () => {
    expect(description('<span class="red">x</span>')).toContain(`Tag "span" must have class "tg-spoiler"`);
    expect(description("<a href>x</a>")).toContain("Expected equal sign");
  });
});
