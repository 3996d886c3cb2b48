// The reservation capability's own problem, shared by its routes (a name a key may not see answers
// as not found), handlers and RPC methods.
import { notFound } from "../core/errors";

export function reservationNotFound(id: string) {
  return notFound(`No reservation with id ${JSON.stringify(id)}.`);
}
