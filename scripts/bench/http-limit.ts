import fs from "node:fs";
import http from "node:http";

// The benchmark's ceiling: node:http answering each endpoint with the very bytes the app answered it
// with once (its JSON body and header fields, recorded by run.ts before the rounds), from memory, with
// no database and no work. What this server reaches is what one Node process can answer on this
// machine with this load generator; the app's figure against it says how much of that the payment
// service itself takes.

type Recorded = { status: number; headers: Record<string, string>; body: string };
type Answers = { create: Recorded; lookup: Recorded; account: Recorded };

const answers = JSON.parse(fs.readFileSync(process.env.ANSWERS_FILE!, "utf8")) as Answers;
const port = Number(process.env.PORT ?? 3400);

// Each answer once as a Buffer with its header fields: the server's work per request is node:http's.
const ready = (a: Recorded) => {
  const body = Buffer.from(a.body);
  return { status: a.status, headers: { ...a.headers, "content-length": String(body.length) }, body };
};
const prepared = { create: ready(answers.create), lookup: ready(answers.lookup), account: ready(answers.account) };

const server = http.createServer((req, res) => {
  // The request body is read as the app reads it, and dropped.
  req.on("data", () => {});
  req.on("end", () => {
    const a = req.method === "POST" ? prepared.create : req.url === "/account" ? prepared.account : prepared.lookup;
    res.writeHead(a.status, a.headers).end(a.body);
  });
});
server.listen(port, "127.0.0.1", () => console.log(`http-limit ready on ${port}`));
