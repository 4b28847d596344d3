import { EntryCodec, type DecodedEntry, VIEW_SLACK_BYTES } from '../entry-codec.ts';
import { refusalReason } from './encryption-layer.ts';

/**
 * The codec of a cache with `encryption`: the default one, except that an entry the
 * encryption layer could not open (a key no longer listed, a failed authentication, a value
 * stored unencrypted) throws its reason, which the engine counts as a corrupt miss and reports
 * in its `corrupt` event, as it does for any undecodable envelope. A separate class so that a
 * cache without encryption decodes with no check added.
 */
export class SealedEntryCodec extends EntryCodec {
  override decode(bytes: Uint8Array, slack = VIEW_SLACK_BYTES): DecodedEntry {
    const refused = refusalReason(bytes);
    if (refused !== undefined) throw new Error(refused);
    return super.decode(bytes, slack);
  }
}
