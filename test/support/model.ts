// Model-based testing of concurrent operations against a simple sequential model.
//
// A run is a sequence of batches; the operations of one batch are sent at the same time, batches one
// after another. After each batch we look for a linearization: an order of the batch's operations in
// which the sequential model, applied one by one, gives every observed answer — and ends in the
// state the database actually holds. If no order does, the service did something no sequential
// execution could have (a lost update, a double booking, a stale read), and the test fails with
// the batch and the answers. Used by test/<capability>.model.test.ts.

export interface Observed {
  status: number;
  json: any;
  headers?: Headers;
}

export interface Model<State, Op> {
  /** The model's next state if `op` applied to `state` could have produced `observed`, else undefined. */
  step(state: State, op: Op, observed: Observed): State | undefined;
  /** Two states are the same (the model's after a batch vs. the database's). */
  same(a: State, b: State): boolean;
}

/** Every state some linearization of the batch can end in (deduplicated with `same`). */
export function linearizations<S, Op>(model: Model<S, Op>, start: S, batch: Array<{ op: Op; observed: Observed }>): S[] {
  const ends: S[] = [];
  const used = new Array<boolean>(batch.length).fill(false);
  const visit = (state: S, placed: number): void => {
    if (placed === batch.length) {
      if (!ends.some((e) => model.same(e, state))) ends.push(state);
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      if (used[i]) continue;
      const next = model.step(state, batch[i].op, batch[i].observed);
      if (next === undefined) continue;
      used[i] = true;
      visit(next, placed + 1);
      used[i] = false;
    }
  };
  visit(start, 0);
  return ends;
}

/**
 * Runs the batches against the service and checks each against the model and the database.
 * Returns a description of the first inconsistency, or undefined.
 */
export async function checkRun<S, Op>(opts: {
  model: Model<S, Op>;
  initial: S;
  batches: Op[][];
  /** Makes an operation concrete before the batch is sent (e.g. picks an id the state knows). */
  resolve?(op: Op, state: S): Op;
  /** Sends one operation. */
  send(op: Op): Promise<Observed>;
  /** The database's state, in the model's terms. */
  actual(): Promise<S>;
  show(op: Op): string;
}): Promise<string | undefined> {
  let state = opts.initial;
  for (const [n, planned] of opts.batches.entries()) {
    const ops = planned.map((op) => (opts.resolve ? opts.resolve(op, state) : op));
    const answers = await Promise.all(ops.map((op) => opts.send(op)));
    const batch = ops.map((op, i) => ({ op, observed: answers[i] }));
    const ends = linearizations(opts.model, state, batch);
    const db = await opts.actual();
    const match = ends.find((e) => opts.model.same(e, db));
    if (!match) {
      const lines = batch.map((b) => `  ${opts.show(b.op)} → ${b.observed.status} ${JSON.stringify(b.observed.json)?.slice(0, 200)}`);
      return `batch ${n}: ${ends.length ? "no order of the answers ends in the database's state" : "no sequential order explains these answers"}\n${lines.join("\n")}`;
    }
    state = match;
  }
  return undefined;
}
