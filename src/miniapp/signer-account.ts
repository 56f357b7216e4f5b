import { findCredential, openApiKey } from "#src/db/repos/credentials";
import { findUser, type User } from "#src/db/repos/users";
import { pickLanguage, translatorFor, type Language, type Translate } from "#src/chat/i18n";
import type { MarketplaceClient } from "#src/marketplace/index";
import { SecretBoxError } from "#src/security/secret-box";
import type { InitDataSigner } from "./init-data";
import type { MiniAppDeps } from "./deps";

/** The signer as the dashboard serves them: their row, language and, when their key opens, a client. */
export interface SignerAccount {
  signer: InitDataSigner;
  user: User | undefined;
  lang: Language;
  tr: Translate;
  /** Why there is no client: no key linked, the key broken, or it cannot be decrypted here. */
  keyState: "linked" | "not_linked" | "broken" | "unreadable";
  /** The key's last four characters, as the chat shows them. */
  last4: string | null;
  /** When the key was linked (with last4, what names this link in the spending cache). */
  linkedAt: number | null;
  client: MarketplaceClient | null;
}

/**
 * Reads the account of the Telegram user who signed the init data, and only theirs: the row is
 * found by the signed user id. The API key is decrypted inside the client's key getter and never
 * leaves the server.
 */
export async function signerAccount(deps: MiniAppDeps, signer: InitDataSigner): Promise<SignerAccount> {
  const user = await findUser(deps.db, signer.telegramId);
  const lang = pickLanguage(user?.language ?? signer.languageCode ?? user?.telegram_language);
  const tr = translatorFor(deps.i18n, lang);
  const base = { signer, user, lang, tr, last4: null, linkedAt: null, client: null };
  if (!user) return { ...base, keyState: "not_linked" };
  const credential = await findCredential(deps.db, signer.telegramId);
  if (!credential) return { ...base, keyState: "not_linked" };
  const link = { last4: credential.last4, linkedAt: Number(credential.linked_at) };
  if (credential.broken_at) return { ...base, keyState: "broken", ...link };
  try {
    const apiKey = openApiKey(deps.box, credential);
    return { ...base, keyState: "linked", ...link, client: deps.marketplace(() => apiKey) };
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    deps.logger.warn(
      { userId: signer.telegramId, reason: error.reason },
      "dashboard: stored API key cannot be decrypted; the chat asks the user to relink",
    );
    return { ...base, keyState: "unreadable", ...link };
  }
}
