import { describe, expect, it } from "vitest";
import { ADDRESS_A, BOT_TOKEN, linkedUser, manageWorld, nextBotText, type World } from "../kit/world";
import { signInitData } from "#src/miniapp/index";
import { PUBLIC_URL } from "../kit/miniapp";
import { autoBuyRow, makeAutoBuy } from "../kit/auto-buys";

interface AutoBuyItem {
  id: string;
  status: string;
  statusText: string;
  cap: string;
  leftToday: string;
  canPause: boolean;
  canResume: boolean;
}

const initDataFor = (world: World, id: number) =>
  signInitData({ id, firstName: `User${id}`, languageCode: "en" }, BOT_TOKEN, new Date(world.app.deps.now()));

const request = (world: World, path: string, initData: string, method = "GET") =>
  Promise.resolve(world.app.http.request(path, { method, headers: { authorization: `tma ${initData}` } }));

/** The dashboard shows auto-buys with Pause and Resume (issue 55); it never creates one. */
describe("auto-buys on the dashboard Mini App", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL } });

  it("lists the signer's auto-buys; Pause and Resume act as /autobuys does, for the signer alone", async () => {
    const { user } = await linkedUser(world, 5901);
    const id = await makeAutoBuy(world, user, `energy 65k 1h ${ADDRESS_A} 3 10`);
    const initData = initDataFor(world, 5901);
    const dashboard = await request(world, "/app/api/dashboard", initData);
    expect(dashboard.status).toBe(200);
    const items = ((await dashboard.json()) as { sections: { autoBuys: { items: AutoBuyItem[] } } }).sections.autoBuys
      .items;
    expect(items).toEqual([
      expect.objectContaining({
        id,
        status: "active",
        statusText: "🟢 buying when the price is right",
        cap: "3 TRX",
        leftToday: "10 TRX",
        canPause: true,
        canResume: false,
      }),
    ]);

    const paused = await request(world, `/app/api/autobuys/${id}/pause`, initData, "POST");
    expect(paused.status).toBe(200);
    const pausedBody = (await paused.json()) as { message: string; autoBuy: AutoBuyItem };
    expect(pausedBody.message).toContain("Paused");
    expect(pausedBody.autoBuy).toMatchObject({ status: "paused", canPause: false, canResume: true });
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "paused", reason: "user" });

    // Another user cannot act on it, nor see it.
    const stranger = await linkedUser(world, 5902);
    const foreign = await request(world, `/app/api/autobuys/${id}/resume`, initDataFor(world, 5902), "POST");
    expect(foreign.status).toBe(404);
    const theirs = (await (await request(world, "/app/api/dashboard", initDataFor(world, 5902))).json()) as {
      sections: { autoBuys: { items: unknown[] } };
    };
    expect(theirs.sections.autoBuys.items).toEqual([]);
    expect(stranger.user.botMessages().length).toBeGreaterThan(0);
    expect(await autoBuyRow(world, id)).toMatchObject({ status: "paused" });

    // With Automatic buying off, Resume is refused here too.
    user.send("/settings");
    await nextBotText(user, (text) => text.includes("Automatic buying: on"));
    user.press(/Automatic buying: on/);
    await nextBotText(user, (text) => text.includes("Automatic buying: off"));
    const refused = await request(world, `/app/api/autobuys/${id}/resume`, initData, "POST");
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { message: string }).message).toContain("Automatic buying is off");
    user.press(/Automatic buying: off/);
    await nextBotText(user, (text) => text.includes("Automatic buying: on"));
    const resumed = await request(world, `/app/api/autobuys/${id}/resume`, initData, "POST");
    expect(resumed.status).toBe(200);
    expect(((await resumed.json()) as { autoBuy: AutoBuyItem }).autoBuy.status).toBe("active");
    expect((await request(world, `/app/api/autobuys/${id}/delete`, initData, "POST")).status).toBe(400);
    expect((await request(world, `/app/api/autobuys/${id}/create`, initData, "POST")).status).toBe(400);
  });
});
