// The Worker entry: HTTP routes and the cron housekeeping.

import { scheduled } from "./core/sweep";
import { createApp } from "./http/app";

export const app = createApp();

export default {
  fetch: app.fetch,
  scheduled,
};
