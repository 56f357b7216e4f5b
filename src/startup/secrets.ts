import { createHmac } from "node:crypto";
import type { DestinationStream } from "pino";
import { dataDirectory, type Config } from "#src/config";
import { createLogger, SecretScrubber, wantsPrettyLogs, type Logger } from "#src/logger";
import { SecretBox } from "#src/security/secret-box";
import { loadOrCreateSecretKey } from "#src/security/secret-key-file";

/** The logger, the scrubber that keeps every secret out of it, and the box that encrypts stored API keys. */
export interface Secrets {
  logger: Logger;
  scrubber: SecretScrubber;
  /** SECRET_KEY, or the key generated into the data folder when it is not set. */
  secretKey: string;
  box: SecretBox;
}

/** The password inside a database URL (postgres://user:password@host/db), as written and decoded. */
function databasePasswords(databaseUrl: string): string[] {
  if (!/^postgres(ql)?:/i.test(databaseUrl)) return [];
  try {
    const password = new URL(databaseUrl).password;
    return password ? [password, decodeURIComponent(password)] : [];
  } catch {
    return [];
  }
}

/** The Telegram webhook secret, derived from SECRET_KEY so every replica agrees without another variable. */
export function telegramWebhookSecret(secretKey: string): string {
  return createHmac("sha256", Buffer.from(secretKey, "base64")).update("telegram-webhook-secret").digest("base64url");
}

/** First step of the composition root: a logger that scrubs every configured secret, then the secret key and its box. */
export function startSecrets(config: Config, logDestination: DestinationStream | undefined): Secrets {
  const scrubber = new SecretScrubber();
  scrubber.add(config.BOT_TOKEN);
  scrubber.add(config.SECRET_KEY);
  scrubber.add(config.SECRET_KEY_PREVIOUS);
  scrubber.add(config.MARKETPLACE_WEBHOOK_SECRET);
  for (const password of databasePasswords(config.DATABASE_URL)) scrubber.add(password);
  scrubber.add(config.METRICS_TOKEN);
  const logger = createLogger({
    level: config.LOG_LEVEL,
    pretty: !logDestination && wantsPrettyLogs(config.LOG_FORMAT, process.stdout.isTTY === true),
    scrubber,
    destination: logDestination,
  });

  let secretKey = config.SECRET_KEY;
  if (!secretKey) {
    const generated = loadOrCreateSecretKey(dataDirectory(config));
    secretKey = generated.key;
    scrubber.add(secretKey);
    if (generated.created) {
      logger.warn(
        { path: generated.path },
        "SECRET_KEY is not set: generated one into the data folder (mode 0600). Back it up or set SECRET_KEY: without it, linked API keys cannot be decrypted.",
      );
    } else {
      logger.warn({ path: generated.path }, "SECRET_KEY is not set: using the generated key from the data folder");
    }
  }
  scrubber.add(telegramWebhookSecret(secretKey));
  const box = new SecretBox(secretKey, config.SECRET_KEY_PREVIOUS, (apiKey) => scrubber.addUserSecret(apiKey));
  return { logger, scrubber, secretKey, box };
}
