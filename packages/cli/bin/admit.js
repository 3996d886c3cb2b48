#!/usr/bin/env node
// The `admit` command: the built CLI (dist/main.js, made by `npm run build`).
import "../dist/main.js";
