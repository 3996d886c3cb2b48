// Node 20 has no global WebSocket; the Neon driver needs one outside Workers. Import this first in
// anything that runs in Node (dev scripts, tests). The Worker itself never imports it.
import { neonConfig } from "@neondatabase/serverless";
import WebSocket from "ws";

neonConfig.webSocketConstructor = WebSocket as unknown as typeof neonConfig.webSocketConstructor;
