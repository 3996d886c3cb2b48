// The few pieces of the Postgres wire protocol the bridge reads or writes: an ErrorResponse of its
// own, whole messages out of a byte stream, and the SQL text of a statement message.

/** A Postgres wire-protocol ErrorResponse ('E') with severity FATAL. */
export function errorResponse(sqlstate: string, message: string): Buffer {
  const fields = Buffer.concat(
    [
      ["S", "FATAL"],
      ["V", "FATAL"],
      ["C", sqlstate],
      ["M", message],
    ].map(([k, v]) => Buffer.from(`${k}${v}\0`, "utf8")),
  );
  const out = Buffer.alloc(1 + 4 + fields.length + 1);
  out.write("E", 0, "ascii");
  out.writeInt32BE(4 + fields.length + 1, 1);
  fields.copy(out, 5);
  out[out.length - 1] = 0;
  return out;
}

/**
 * Splits a Postgres protocol byte stream into whole messages. The client's first message is the
 * startup packet (no type byte); every other message is type (1 byte) + length (4, including itself).
 */
export class MessageSplitter {
  private pending: Buffer = Buffer.alloc(0);
  constructor(private startup: boolean) {}

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: Buffer[] = [];
    for (;;) {
      const head = this.startup ? 0 : 1;
      if (this.pending.length < head + 4) break;
      const size = head + this.pending.readInt32BE(head);
      if (size < head + 4 || this.pending.length < size) break;
      out.push(this.pending.subarray(0, size));
      this.pending = this.pending.subarray(size);
      // An SSLRequest/GSSENCRequest is followed by another startup packet; the driver sends none here.
      this.startup = false;
    }
    return out;
  }
}

/** The SQL text of a simple Query ('Q') or a Parse ('P') message, else undefined. */
function statementText(msg: Buffer): string | undefined {
  if (msg[0] === 0x51) return msg.toString("utf8", 5, msg.indexOf(0, 5));
  if (msg[0] === 0x50) {
    const nameEnd = msg.indexOf(0, 5);
    return msg.toString("utf8", nameEnd + 1, msg.indexOf(0, nameEnd + 1));
  }
  return undefined;
}

export function statementMatches(msg: Buffer, match: string | RegExp): boolean {
  const text = statementText(msg);
  if (text === undefined) return false;
  return typeof match === "string" ? text.includes(match) : match.test(text);
}
