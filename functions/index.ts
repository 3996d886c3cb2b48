// The Worker entry: HTTP routes and the cron housekeeping.
import { createApp } from "./http/app";
import { scheduled } from "./core/sweep";

export const app = createApp();

export default {
  fetch: app.fetch,
  scheduled,
};
