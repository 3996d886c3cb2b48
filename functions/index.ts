// The Worker entry.
import { createApp } from "./app";

export const app = createApp();

export default {
  fetch: app.fetch,
};
