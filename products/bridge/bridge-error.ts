/** An HTTP failure the bridge answers with `{ "error": message }` and `status`. */
export class BridgeError extends Error {
  override readonly name = 'BridgeError';

  constructor(
    /** HTTP status of the answer. */
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
