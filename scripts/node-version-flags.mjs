// Prints the Node.js flags `npm start` adds that depend on the Node version running it (package.json's
// start and worker scripts, and scripts/production-flags.ts for the tools that start the server).
//
// AsyncLocalStorage backed by AsyncContextFrame: the default from Node 24; Node 22 and 23 need
// --experimental-async-context-frame (Node 24 refuses that flag). Without it every promise runs the
// async_hooks that AsyncLocalStorage propagates through, and Next's stores and the request context
// are in the process: 6–10% of the API's CPU per request (docs/performance.md).
const major = Number(process.versions.node.split(".")[0]);
process.stdout.write(major < 24 ? "--experimental-async-context-frame" : "");
