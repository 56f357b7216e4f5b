import { describe, expect, it } from "vitest";
import { manageWorld, type World } from "../kit/world";
import { waitFor } from "../kit/push-helpers";

/** At start the bot sets its description and short description per language from the locales. */
describe("the bot's profile", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const tr = (language: string, key: string) => world.app.deps.i18n.t(language, key);

  it("is set in en, ru and zh (English also as the default), as Telegram then shows it per app language", async () => {
    const api = world.app.bot.api;
    await waitFor(
      () => world.fake.calls.filter((call) => call.method === "setMyShortDescription" && call.ok).length >= 4,
    );
    for (const language of ["en", "ru", "zh"] as const) {
      expect((await api.getMyDescription({ language_code: language })).description).toBe(
        tr(language, "bot-description"),
      );
      expect((await api.getMyShortDescription({ language_code: language })).short_description).toBe(
        tr(language, "bot-short-description"),
      );
    }
    // An app language the bot has no locale for gets the default, in English.
    expect((await api.getMyDescription({ language_code: "de" })).description).toBe(tr("en", "bot-description"));
    expect((await api.getMyDescription()).description).toBe(tr("en", "bot-description"));
    expect(tr("ru", "bot-description")).not.toBe(tr("en", "bot-description"));
    expect(tr("zh", "bot-short-description").length).toBeLessThanOrEqual(120);
  });
});
