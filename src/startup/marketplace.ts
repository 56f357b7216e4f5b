import { join } from "node:path";
import { dataDirectory, type Config } from "#src/config";
import type { Logger, SecretScrubber } from "#src/logger";
import type { Metrics } from "#src/metrics";
import { createMarketplaceClient } from "#src/marketplace/index";
import { withBoundedPublicQuotes } from "#src/marketplace/public-quotes";
import { startEmbeddedSandbox, type EmbeddedSandbox } from "#src/embedded-sandbox";

/** The marketplace the bot talks to: MARKETPLACE_URL, or the embedded sandbox when it is not set. */
export interface MarketplaceStep {
  sandbox: EmbeddedSandbox | null;
  marketplaceUrl: string;
  marketplace: ReturnType<typeof withBoundedPublicQuotes>;
}

export interface MarketplaceStepDeps {
  config: Config;
  logger: Logger;
  scrubber: SecretScrubber;
  metrics: Metrics;
  /** Marketplace client retry back-off base (tests use small values). */
  backoffMs: number | undefined;
  /** Where the step adds what must be stopped on shutdown. */
  stops: Array<() => Promise<void> | void>;
}

/** Starts the embedded sandbox when no marketplace is configured, then builds the one client of the process. */
export async function startMarketplace({
  config,
  logger,
  scrubber,
  metrics,
  backoffMs,
  stops,
}: MarketplaceStepDeps): Promise<MarketplaceStep> {
  let sandbox: EmbeddedSandbox | null = null;
  let marketplaceUrl = config.MARKETPLACE_URL;
  if (!marketplaceUrl) {
    // Kept beside a file database so a restart keeps the demo key a playground user linked.
    sandbox = await startEmbeddedSandbox({
      stateFile: config.DATABASE_URL.startsWith("file:") ? join(dataDirectory(config), "sandbox-state.json") : null,
    });
    const started = sandbox;
    stops.push(() => started.stop());
    marketplaceUrl = sandbox.url;
    // The playground's start-up box says this to the person who started it.
    logger[config.playground ? "debug" : "info"](
      {
        marketplace: marketplaceUrl,
        demoApiKeyEnding: sandbox.demoApiKey.slice(-4),
        stateFile: sandbox.stateFile,
        restored: sandbox.restored,
      },
      "using the embedded sandbox marketplace (no real TRX)",
    );
    if (sandbox.restoreProblem)
      logger.warn(
        { stateFile: sandbox.stateFile, problem: sandbox.restoreProblem },
        "the saved sandbox state could not be read: moved it aside and started a fresh sandbox (new demo key)",
      );
  } else {
    logger.info({ marketplace: marketplaceUrl }, "using the marketplace at MARKETPLACE_URL");
  }
  const baseUrl = marketplaceUrl;

  // Every key a call is made with (a stored one, or one offered to /connect) is scrubbed from logs.
  // One bounded path for every public quote of the process (see public-quotes.ts).
  const marketplace = withBoundedPublicQuotes(
    (apiKey?: () => string) =>
      createMarketplaceClient({
        baseUrl,
        apiKey:
          apiKey &&
          (() => {
            const key = apiKey();
            scrubber.addUserSecret(key);
            return key;
          }),
        timeoutMs: config.MARKETPLACE_TIMEOUT_MS,
        backoffBaseMs: backoffMs,
        onCall: (info) => metrics.marketplaceCall(info),
      }),
    { onLimit: (limit) => metrics.publicWorkLimited.inc({ limit }) },
  );
  return { sandbox, marketplaceUrl, marketplace };
}
