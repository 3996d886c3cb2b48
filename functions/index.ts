// The Worker entry: HTTP routes and the cron housekeeping.
import { createApp } from "./app";
import { scheduled } from "./scheduled";

export const app = createApp();

export default {
  fetch: app.fetch,
  scheduled,
};
