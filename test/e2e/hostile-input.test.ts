import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  ADDRESS_A,
  ADDRESS_B,
  ADDRESS_C,
  callbackAnswerText,
  linkKey,
  manageWorld,
  openStep,
  type World,
} from "../kit/world";
import { touchAddress } from "#src/db/repos/addresses";
import type { ChatMessage } from "#src/telegram-fake/index";

/** The English `error-generic`: what a handler that threw leaves the user with. */
const GENERIC_ERROR = "Something went wrong on our side";
/** The "no longer valid" toasts: button-expired, card-expired (confirmation buttons), flow-closed and flow-not-this-question (answer buttons). */
const NO_LONGER_VALID = [
  "This button is no longer valid.",
  "This confirmation is no longer valid.",
  "This question is closed. Start again from the command.",
  "This button does not answer the open question. Use the buttons under the last question, or type your answer.",
];

const PROTOTYPE_NAMES = ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf", "prototype"];
const PIECES = [
  ...PROTOTYPE_NAMES,
  ...PROTOTYPE_NAMES.map((name) => `@${name}`),
  "<b>&</b>",
  "<script>alert(1)</script>",
  "🔥",
  "👨‍👩‍👧",
  "مرحبا",
  "\u202E",
  "\u200F",
  "\u200B",
  "\u2060",
  "\uFEFF",
  " ",
  "\t",
  "\u00A0",
];
const FIXED = [
  ...PROTOTYPE_NAMES,
  ...PROTOTYPE_NAMES.map((name) => `@${name}`),
  "<b>&</b>",
  "<script>alert(1)</script>",
  // 4,096 characters, the most one message can carry
  "<b>&</b>".repeat(512),
  "@toString".padEnd(4096, "x"),
  "🔥".repeat(2048),
  "\u202Eygrene\u202C",
  "\u200B\u200C\u200D\u2060\uFEFF",
  "   ",
  "\t \u00A0\u2003",
];
const hostileText = fc.oneof(
  fc.constantFrom(...FIXED),
  fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }).map((pieces) => pieces.join("")),
);
/** Tried first at every step, whatever the random runs pick: the inputs that once reached a built-in. */
const ALWAYS = ["@toString", "@constructor", "@__proto__", "<b>&</b>".repeat(512)].map((text) => [text] as [string]);
const RUNS = 10;

/** Callback data as Telegram carries it: at most 64 bytes, never half a character. */
function callbackData(text: string): string {
  let data = text;
  while (Buffer.byteLength(data) > 64) data = [...data].slice(0, -1).join("");
  return data;
}

/** The menus (@grammyjs/menu): data `<menu>/<row>/<column>/<payload>/<fingerprint>`. */
const MENUS = ["rl", "ru", "rc", "rd", "tx", "st"];
/** Every callback-data prefix the bot reads, each with a payload of the shape it expects where it has one. */
const PREFIXES = [
  "a:",
  "qb:",
  "qb:e:1:",
  "w:tx",
  "w:r",
  "tx:p:",
  "tx:p:1:a:",
  "dc:y",
  "dc:n",
  "st:l:",
  "st:a:",
  "wh:rot",
  "cf:",
  "cx:",
  "rf:",
  "ar:",
  "or:p:",
  "or:o:",
  "or:s",
  "n:p:",
  "n:r:",
  "n:a:",
  "rl:l:",
  "rl:b",
  "rl:o:",
  "rl:c:",
  "rl:p:",
  "rl:r:",
  "rl:C:",
  "rl:d:",
  "m:",
  "ad:x:",
  "ad:l:",
  "ba:",
  "wl:y:",
  "wl:n:",
  "gp:r:",
  "gp:p:",
  "gl:t:",
  "gl:c",
  "gl:x",
  ...MENUS.flatMap((menu) => [`${menu}/`, `${menu}/0/0/`]),
];
/** Ten characters of the short-reference alphabet, so the data reaches the handler and its lookup. */
const REFERENCE_SHAPED = ["__proto__x", "constructo", "toString__"];
const CRAFTED = [
  ...PREFIXES.flatMap((prefix) =>
    ["toString", "__proto__", "@constructor", "<b>&</b>", "🔥\u202E\u200B"].map((payload) => `${prefix}${payload}`),
  ),
  ...[
    "cf:",
    "cx:",
    "rf:",
    "ar:",
    "ad:x:",
    "ad:l:",
    "ba:",
    "gp:r:",
    "gp:p:",
    "rl:o:",
    "rl:c:",
    "rl:p:",
    "rl:r:",
    "rl:C:",
    "rl:d:",
  ].flatMap((prefix) => REFERENCE_SHAPED.map((ref) => `${prefix}${ref}`)),
  ...REFERENCE_SHAPED.flatMap((ref) => [
    `or:o:${ref}:1`,
    `n:r:${ref}:1`,
    `tx:p:1:a:${ref}`,
    `rl:o:${ref}:1`,
    `rl:d:${ref}:2`,
  ]),
  ...["constructor", "prototype", "tostring", "valueof", "hasownproperty"].flatMap((name) => [
    `m:${name}`,
    `st:l:${name}`,
    `st:a:${name}`,
  ]),
  ...["toString", "valueOf", "proto"].map((name) => `qb:e:65000:${name}`),
  // Well-formed menu data that no message of the chat carries: a press on it must act on nothing.
  ...MENUS.flatMap((menu) =>
    REFERENCE_SHAPED.flatMap((ref) => [
      `${menu}/0/0/${ref}.1/f\u0001\u0002`,
      `${menu}/1/0/${ref}.0.t/fabc`,
      `${menu}/0/0/1.a.-/h\u00ff`,
      `${menu}/-1/0/${ref}.1/fx`,
    ]),
  ),
].map(callbackData);

// The bot allows a user 20 updates in 10 s of its clock. Its clock runs SCALE times faster here,
// and each user's updates are spaced so that no window holds more than a dozen.
const SCALE = 40;
const GAP_MS = Math.ceil(10_000 / SCALE / 12);

describe("hostile text at every step gets an explanation, never the generic error", () => {
  let world: World;
  manageWorld((started) => (world = started), { timeScale: SCALE });

  /** A linked user with saved addresses (so the address steps offer "@<reference>" buttons), whose updates are paced. */
  async function hostileUser(id: number) {
    const { apiKey } = world.newAccount();
    const user = world.user(id);
    let last = 0;
    const pace = async () => {
      const wait = last + GAP_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      last = Date.now();
    };
    await pace();
    await linkKey(world, user, apiKey);
    const now = Date.now();
    for (const [index, address] of [ADDRESS_A, ADDRESS_B, ADDRESS_C].entries())
      await touchAddress(world.app.db, id, address, now - index * 1_000);
    return {
      user,
      async send(text: string): Promise<ChatMessage> {
        await pace();
        user.send(text);
        return user.nextMessage({ timeoutMs: 8000 });
      },
      async press(label: string | RegExp): Promise<ChatMessage> {
        await pace();
        user.press(label);
        return user.nextMessage({ timeoutMs: 8000 });
      },
      pace,
    };
  }
  type Hostile = Awaited<ReturnType<typeof hostileUser>>;

  /** The step a guided flow last asked, as stored beside its state ("buy/address"). */
  async function flowOf(id: number): Promise<string | null> {
    return openStep(world, id);
  }

  function expectQuestion(message: ChatMessage, words: string): void {
    expect(message.text, `expected the question "${words}"`).toContain(words);
  }

  /** `at`: the stored flow and step ("buy/address"), or null for a one-line command (no step to hold). */
  interface Step {
    name: string;
    at: string | null;
    reach(user: Hostile): Promise<void>;
    /** What the user types for one hostile text (a one-line command puts it after the command). */
    message?: (text: string) => string;
    /** Every acceptable answer: an explanation that asks again, a clear refusal, or (for free text) the next step. */
    answers: RegExp;
    /** An answer after which the bot sends one more message (the address book after a saved label). */
    followedBy?: RegExp;
  }

  const VOLUME_BAD = /could not read that volume|above zero|cannot be negative|whole number of units|out of bounds/;
  const ADDRESS_BAD = /not a TRON address|wrong checksum/;

  const send = (text: string, words: string) => async (user: Hostile) => expectQuestion(await user.send(text), words);
  const steps =
    (...parts: Array<[kind: "send" | "press", value: string, words: string]>) =>
    async (user: Hostile) => {
      for (const [kind, value, words] of parts)
        expectQuestion(kind === "send" ? await user.send(value) : await user.press(value), words);
    };

  async function drive(user: Hostile, step: Step): Promise<void> {
    const id = user.user.user.id;
    // Reached afresh for each step (refill, renewal and smart share "rule/address"), then again whenever an answer moved the flow on.
    let reached = false;
    await fc.assert(
      fc.asyncProperty(hostileText, async (text) => {
        if (!reached || step.at === null || (await flowOf(id)) !== step.at) await step.reach(user);
        reached = true;
        const requestsBefore = world.sandboxRequests.length;
        const reply = await user.send(step.message ? step.message(text) : text);
        expect(reply.text, `${step.name}: ${JSON.stringify(text.slice(0, 60))}`).not.toContain(GENERIC_ERROR);
        expect(reply.text, `${step.name}: ${JSON.stringify(text.slice(0, 60))}`).toMatch(step.answers);
        if (step.at?.endsWith("/address") && ADDRESS_BAD.test(reply.text ?? "")) {
          expect(
            world.sandboxRequests.slice(requestsBefore),
            `${step.name}: a refused address is refused before any call`,
          ).toEqual([]);
        }
        if (step.followedBy?.test(reply.text ?? "")) await user.user.nextMessage({ timeoutMs: 8000 });
      }),
      { numRuns: RUNS, examples: ALWAYS, endOnFailure: true },
    );
  }

  function expectNoGenericError(user: Hostile): void {
    expect(user.user.botMessages().filter((message) => message.text?.includes(GENERIC_ERROR))).toEqual([]);
  }

  it("quote and buy: every guided step and the one-line commands", async () => {
    const user = await hostileUser(1001);
    const quoteSteps: Step[] = [
      {
        name: "quote resource",
        at: "quote/resource",
        reach: send("/quote", "Which resource"),
        answers: /Please choose energy or bandwidth/,
      },
      {
        name: "quote volume",
        at: "quote/volume",
        reach: send("/quote energy", "How much Energy"),
        answers: VOLUME_BAD,
      },
      {
        name: "quote duration",
        at: "quote/duration",
        reach: send("/quote energy 65k", "For how long"),
        answers: /Please choose one of these durations/,
      },
      {
        name: "buy resource",
        at: "buy/resource",
        reach: send("/buy", "Which resource"),
        answers: /Please choose energy or bandwidth/,
      },
      {
        name: "buy volume",
        at: "buy/volume",
        reach: send("/buy bandwidth", "How much Bandwidth"),
        answers: VOLUME_BAD,
      },
      {
        name: "buy duration",
        at: "buy/duration",
        reach: send("/buy energy 65k", "For how long"),
        answers: /Please choose one of these durations/,
      },
      {
        name: "buy address",
        at: "buy/address",
        reach: send("/buy energy 65k 1h", "Which address"),
        answers: ADDRESS_BAD,
      },
      {
        name: "/quote one line",
        at: null,
        reach: async () => undefined,
        message: (text) => `/quote ${text}`,
        answers: /could not read “|Which resource/,
      },
      {
        name: "/buy one line",
        at: null,
        reach: async () => undefined,
        message: (text) => `/buy ${text}`,
        answers: /could not read “|Which resource/,
      },
    ];
    for (const step of quoteSteps) await drive(user, step);
    expectNoGenericError(user);
  }, 60_000);

  it("rules: every step of /newrule for refill, renewal and smart, and /refill /renewal /smart on one line", async () => {
    const user = await hostileUser(1002);
    const newRule = (kind: string, ...rest: Array<[kind: "send" | "press", value: string, words: string]>) =>
      steps(["send", "/newrule", "Which kind of rule"], ["press", kind, "Which address should the rule"], ...rest);
    const ruleSteps: Step[] = [
      {
        name: "rule kind",
        at: "rule/kind",
        reach: send("/newrule", "Which kind of rule"),
        answers: /choose one of the kinds/,
      },
      { name: "refill address", at: "rule/address", reach: newRule("Auto-refill"), answers: ADDRESS_BAD },
      {
        name: "refill minimal",
        at: "rule/minimal",
        reach: newRule("Auto-refill", ["send", ADDRESS_A, "falls below"]),
        answers: /threshold must be/,
      },
      {
        name: "refill volume",
        at: "rule/volume",
        reach: newRule("Auto-refill", ["send", ADDRESS_A, "falls below"], ["send", "30k", "per delivery"]),
        answers: VOLUME_BAD,
      },
      {
        name: "refill duration",
        at: "rule/duration",
        reach: newRule(
          "Auto-refill",
          ["send", ADDRESS_A, "falls below"],
          ["send", "30k", "per delivery"],
          ["press", "65,000", "For how long"],
        ),
        answers: /Please choose one of these durations/,
      },
      {
        name: "refill auto-resume",
        at: "rule/autoResume",
        reach: newRule(
          "Auto-refill",
          ["send", ADDRESS_A, "falls below"],
          ["send", "30k", "per delivery"],
          ["press", "65,000", "For how long"],
          ["press", "1h", "resume by itself"],
        ),
        answers: /answer Yes or No/,
      },
      { name: "renewal address", at: "rule/address", reach: newRule("Auto-renewal"), answers: ADDRESS_BAD },
      {
        name: "renewal volume",
        at: "rule/volume",
        reach: newRule("Auto-renewal", ["send", ADDRESS_B, "renewed each day"]),
        answers: VOLUME_BAD,
      },
      {
        name: "renewal auto-resume",
        at: "rule/autoResume",
        reach: newRule(
          "Auto-renewal",
          ["send", ADDRESS_B, "renewed each day"],
          ["press", "131,000", "resume by itself"],
        ),
        answers: /answer Yes or No/,
      },
      { name: "smart address", at: "rule/address", reach: newRule("Smart mode"), answers: ADDRESS_BAD },
      {
        name: "smart auto-resume",
        at: "rule/autoResume",
        reach: newRule("Smart mode", ["send", ADDRESS_C, "resume by itself"]),
        answers: /answer Yes or No/,
      },
      {
        name: "/refill address step",
        at: "rule/address",
        reach: send("/refill", "Which address should the rule"),
        answers: ADDRESS_BAD,
      },
      ...["refill", "renewal", "smart"].map((kind): Step => ({
        name: `/${kind} one line`,
        at: null,
        reach: async () => undefined,
        message: (text) => `/${kind} ${text}`,
        answers: /could not read “|Which address should the rule/,
      })),
    ];
    for (const step of ruleSteps) await drive(user, step);
    expectNoGenericError(user);
  }, 60_000);

  it("address labels and settings", async () => {
    const user = await hostileUser(1003);
    const label = async (hostile: Hostile) => {
      expectQuestion(await hostile.send("/addresses"), "Your addresses");
      expectQuestion(await hostile.press(/✏️/), "Send a label for");
    };
    await drive(user, {
      name: "address label",
      at: "address-label/label",
      reach: label,
      answers: /Label saved|Label removed|1 to 32 characters/,
      followedBy: /Label saved|Label removed/,
    });
    // With no question open (a /cancel first), text next to the settings card is not understood, and says so.
    const settings = steps(["send", "/cancel", "ancel"], ["send", "/settings", "Settings"]);
    await drive(user, { name: "text after /settings", at: null, reach: settings, answers: /didn't understand/ });
    expectNoGenericError(user);
  }, 60_000);

  it("crafted callback data of every prefix gets the short 'no longer valid' answer, and nothing else", async () => {
    const user = await hostileUser(1004);
    // A question is open, with buttons: crafted answers must not reach it either.
    const question = await user.send("/buy energy 65k 1h");
    expectQuestion(question, "Which address");
    let forged = 0;
    const press = async (data: string): Promise<string> => {
      await user.pace();
      const id = `forged-${++forged}`;
      const { id: userId, firstName } = user.user.user;
      world.fake.injectUpdate({
        callback_query: {
          id,
          from: { id: userId, is_bot: false, first_name: firstName, language_code: "en" },
          // Telegram sends the pressed message as it is, keyboard included.
          message: {
            message_id: question.messageId,
            from: { id: 123456789, is_bot: true, first_name: "Energy Sandbox" },
            chat: { id: userId, type: "private", first_name: firstName },
            date: question.date,
            text: question.text,
            reply_markup: question.replyMarkup,
          },
          chat_instance: "1",
          data,
        },
      });
      return callbackAnswerText(world, id);
    };
    const chatId = () => user.user.user.id;
    const chatCalls = () =>
      world.fake.calls.filter(
        (call) =>
          call.method !== "answerCallbackQuery" &&
          call.method !== "getUpdates" &&
          Number(call.params.chat_id) === chatId(),
      ).length;
    const callsBefore = chatCalls();
    for (const data of CRAFTED)
      expect(NO_LONGER_VALID, `${JSON.stringify(data)} was answered`).toContain(await press(data));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PREFIXES), hostileText, async (prefix, text) => {
        const data = callbackData(`${prefix}${text}`);
        expect(NO_LONGER_VALID, `${JSON.stringify(data)} was answered`).toContain(await press(data));
      }),
      { numRuns: 25, endOnFailure: true },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Only toasts: no message, no edit, and the question is still open.
    expect(chatCalls()).toBe(callsBefore);
    expect(await flowOf(chatId())).toBe("buy/address");
    expectNoGenericError(user);
  }, 60_000);
});

describe("an address is checked before any marketplace call", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const BAD_CHECKSUM = `${ADDRESS_A.slice(0, -1)}X`;
  const BAD_FORMAT = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqe";

  it("/buy, /refill, /renewal and /smart with a bad address are refused without a request to the marketplace", async () => {
    const user = world.user(1011);
    await linkKey(world, user, world.newAccount().apiKey);
    const commands = [
      [`/buy energy 65k 1h ${BAD_CHECKSUM}`, "wrong checksum"],
      [`/buy ${BAD_FORMAT} energy 65k 1h`, "not a TRON address"],
      [`/refill ${BAD_CHECKSUM} 30k 65k 1h`, "wrong checksum"],
      [`/renewal ${BAD_FORMAT} 65k`, "not a TRON address"],
      [`/smart ${BAD_CHECKSUM}`, "wrong checksum"],
    ];
    for (const [command, refusal] of commands) {
      const before = world.sandboxRequests.length;
      user.send(command!);
      expect((await user.nextMessage()).text).toContain(refusal);
      expect(world.sandboxRequests.slice(before), command).toEqual([]);
    }
  });
});
