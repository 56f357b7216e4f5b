import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LocaleBundles, pickLanguage, translatorFor } from "#src/chat/i18n";
import { projectRoot } from "#src/paths";

const sources = {
  en: "hello = Hello, { $name }!\nonly-en = English only\ncount = { $n ->\n    [one] one order\n   *[other] { $n } orders\n}\nbutton = Button\n    .hint = Tap it\n",
  ru: "hello = Привет, { $name }!\ncount = { $n ->\n    [one] { $n } заказ\n    [few] { $n } заказа\n   *[many] { $n } заказов\n}\n",
  zh: "hello = 你好，{ $name }！\n",
};

describe("translations through @fluent/bundle and @fluent/langneg", () => {
  const bundles = new LocaleBundles(sources);

  it("formats a message in the chosen language, without isolation marks", () => {
    expect(bundles.t("ru", "hello", { name: "Аня" })).toBe("Привет, Аня!");
    expect(bundles.t("zh", "hello", { name: "Li" })).toBe("你好，Li！");
  });

  it("falls back on English for a message a language lacks, and names a key missing everywhere", () => {
    expect(bundles.t("zh", "only-en")).toBe("English only");
    expect(bundles.t("ru", "no-such-key")).toBe("{no-such-key}");
  });

  it("reads an attribute with key.attribute", () => {
    expect(bundles.t("en", "button.hint")).toBe("Tap it");
    expect(bundles.t("en", "button")).toBe("Button");
  });

  it("chooses words by each language's plural rules", () => {
    expect([1, 3, 5].map((n) => bundles.t("ru", "count", { n }))).toEqual(["1 заказ", "3 заказа", "5 заказов"]);
    expect([1, 2].map((n) => bundles.t("en", "count", { n }))).toEqual(["one order", "2 orders"]);
  });

  it("takes any locale tag a caller passes to the language it negotiates to", () => {
    expect(bundles.t("ru-RU", "hello", { name: "x" })).toBe("Привет, x!");
    expect(bundles.t("pt-br", "hello", { name: "x" })).toBe("Hello, x!");
  });

  it("escapes string variables through translatorFor", () => {
    expect(translatorFor(bundles, "en")("hello", { name: "<b>&" })).toBe("Hello, &lt;b&gt;&amp;!");
  });

  it("negotiates Telegram's language codes to a shipped language, English otherwise", () => {
    expect(
      ["ru", "RU", "ru-ua", "zh-hans", "zh-Hant-TW", "en-GB", "pt-br", "", null, undefined, "x".repeat(300)].map(
        pickLanguage,
      ),
    ).toEqual(["ru", "ru", "ru", "zh", "zh", "en", "en", "en", "en", "en", "en"]);
  });

  it("loads the shipped locales, each with the welcome in its own language", () => {
    const shipped = LocaleBundles.load(join(projectRoot(), "locales"));
    const welcomes = ["en", "ru", "zh"].map((language) => shipped.t(language, "start-welcome", { name: "N" }));
    expect(new Set(welcomes).size).toBe(3);
    for (const welcome of welcomes) expect(welcome).toContain("N");
  });

  it("refuses a Fluent file with a message defined twice", () => {
    expect(() => new LocaleBundles({ ...sources, ru: "hello = a\nhello = b\n" })).toThrow(/ru\.ftl/);
  });
});
