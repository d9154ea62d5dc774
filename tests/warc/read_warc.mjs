// Reads every record of every .warc.gz file given (files, or directories of
// them) with warcio.js, checks each record's digests and links itself
// (orphan requests, whose WARC-Concurrent-To names no record of their file,
// are listed under "orphan_requests"), and prints what it found as JSON on
// stdout:
//   node read_warc.mjs DIR_OR_FILE...
// Exit status 0 when every file parsed and every check held, 1 otherwise
// (the JSON then lists the problems under "errors").
//
// warcio parses the files (gzip members, WARC headers, HTTP heads); the
// digests are recomputed here from the record blocks warcio returns, so a
// digest the writer got wrong cannot agree with itself.
import { createHash } from "node:crypto";
import { createReadStream, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { WARCParser } from "warcio";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

// RFC 4648 base32, with padding.
function base32(bytes) {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const b of bytes) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += "=";
  return out;
}

const sha1 = (bytes) => "sha1:" + base32(createHash("sha1").update(bytes).digest());

// The payload of an application/http block: what follows the blank line.
function payloadOf(block) {
  for (let i = 0; i + 3 < block.length; i++)
    if (block[i] === 13 && block[i + 1] === 10 && block[i + 2] === 13 && block[i + 3] === 10)
      return block.subarray(i + 4);
  return null;
}

function warcFiles(args) {
  const files = [];
  for (const arg of args) {
    if (statSync(arg).isDirectory()) {
      for (const name of readdirSync(arg).sort())
        if (name.endsWith(".warc.gz")) files.push(join(arg, name));
    } else {
      files.push(arg);
    }
  }
  return files;
}

async function readFile(path, report) {
  const records = [];
  // Pass 1: the raw blocks, for the digests.
  for await (const record of WARCParser.iterRecords(createReadStream(path), { parseHttp: false })) {
    const h = record.warcHeaders.headers;
    const block = await record.readFully(false);
    records.push({ h, block });
  }
  // Pass 2: warcio's own HTTP parsing, for the statuses.
  let i = 0;
  for await (const record of WARCParser.iterRecords(createReadStream(path))) {
    const r = records[i++];
    if (record.httpHeaders) {
      r.status = Number(record.httpHeaders.statusCode || 0);
      r.httpHeaders = record.httpHeaders.headers;
    }
    await record.readFully(false);
  }
  if (i !== records.length) report.errors.push(`${basename(path)}: ${records.length} records, then ${i} with HTTP parsing`);
  return records;
}

async function main() {
  const files = warcFiles(process.argv.slice(2));
  const report = { files: files.length, records: 0, by_type: {}, responses: [], revisits: [], requests: [],
                   warcinfo: [], orphan_requests: [], errors: [] };
  const ids = new Map();       // WARC-Record-ID -> record
  const all = [];
  for (const path of files) {
    let records;
    try {
      records = await readFile(path, report);
    } catch (e) {
      report.errors.push(`${basename(path)}: ${e.message}`);
      continue;
    }
    const info = records[0];
    if (!info || info.h.get("WARC-Type") !== "warcinfo")
      report.errors.push(`${basename(path)}: does not start with a warcinfo record`);
    const idsInFile = new Set(records.map((r) => r.h.get("WARC-Record-ID")));
    for (const r of records) {
      r.file = basename(path);
      r.warcinfoOfFile = info ? info.h.get("WARC-Record-ID") : null;
      ids.set(r.h.get("WARC-Record-ID"), r);
      all.push(r);
      // A request and its response are written to one file in one write
      // (docs/warc.md: "the pair is whole or absent"), so a request whose
      // partner is not in its file is what a badly repaired torn tail left.
      if (r.h.get("WARC-Type") === "request" && !idsInFile.has(r.h.get("WARC-Concurrent-To"))) {
        const orphan = { file: r.file, id: r.h.get("WARC-Record-ID"), uri: r.h.get("WARC-Target-URI"),
                         concurrent_to: r.h.get("WARC-Concurrent-To") || null };
        report.orphan_requests.push(orphan);
        report.errors.push(`${r.file} request ${orphan.id}: orphan: WARC-Concurrent-To ${orphan.concurrent_to} ` +
                           "names no record in its file");
      }
    }
  }
  for (const r of all) {
    const type = r.h.get("WARC-Type");
    const id = r.h.get("WARC-Record-ID");
    const where = `${r.file} ${type} ${id}`;
    report.records++;
    report.by_type[type] = (report.by_type[type] || 0) + 1;
    if (r.h.get("WARC-Block-Digest") !== sha1(r.block))
      report.errors.push(`${where}: WARC-Block-Digest ${r.h.get("WARC-Block-Digest")} != ${sha1(r.block)}`);
    if (Number(r.h.get("Content-Length")) !== r.block.length)
      report.errors.push(`${where}: Content-Length ${r.h.get("Content-Length")} != ${r.block.length}`);
    if (type === "warcinfo") {
      report.warcinfo.push({ file: r.file, fields: new TextDecoder().decode(r.block) });
      continue;
    }
    if (r.h.get("WARC-Warcinfo-ID") !== r.warcinfoOfFile)
      report.errors.push(`${where}: WARC-Warcinfo-ID is not its file's warcinfo`);
    const partner = ids.get(r.h.get("WARC-Concurrent-To"));
    if (!partner || partner.h.get("WARC-Concurrent-To") !== id)
      report.errors.push(`${where}: WARC-Concurrent-To has no partner pointing back`);
    const payload = payloadOf(r.block);
    const uri = r.h.get("WARC-Target-URI");
    if (type === "request") {
      if (payload === null || r.h.get("WARC-Payload-Digest") !== sha1(payload))
        report.errors.push(`${where}: request payload digest does not verify`);
      report.requests.push({ uri, method: new TextDecoder().decode(r.block.subarray(0, r.block.indexOf(32))) });
    } else if (type === "response") {
      if (payload === null || r.h.get("WARC-Payload-Digest") !== sha1(payload))
        report.errors.push(`${where}: WARC-Payload-Digest does not verify`);
      const length = r.httpHeaders ? Number(r.httpHeaders.get("content-length")) : -1;
      if (payload !== null && length !== payload.length)
        report.errors.push(`${where}: HTTP Content-Length ${length} != stored payload ${payload.length}`);
      report.responses.push({ uri, status: r.status, truncated: r.h.get("WARC-Truncated") || null,
                              payload_bytes: payload ? payload.length : -1, ip: r.h.get("WARC-IP-Address") || null,
                              content_encoding: r.httpHeaders ? r.httpHeaders.get("content-encoding") : null,
                              orig_content_encoding: r.httpHeaders ? r.httpHeaders.get("x-archive-orig-content-encoding") : null });
    } else if (type === "revisit" && !r.h.get("WARC-Refers-To")) {
      // A revisit of what an earlier run archived (WARC 1.1 makes
      // WARC-Refers-To optional): some response read must be of the URI it
      // names, and of its payload when it claims an identical one.
      const profile = r.h.get("WARC-Profile") || "";
      const target = r.h.get("WARC-Refers-To-Target-URI");
      const digest = r.h.get("WARC-Payload-Digest");
      const known = [...ids.values()].some((o) => o.h.get("WARC-Type") === "response" &&
        o.h.get("WARC-Target-URI") === target &&
        (!profile.endsWith("/identical-payload-digest") || o.h.get("WARC-Payload-Digest") === digest));
      if (!known)
        report.errors.push(`${where}: refers to ${target}, of which no response was read`);
      if (!profile.endsWith("/server-not-modified") && !profile.endsWith("/identical-payload-digest"))
        report.errors.push(`${where}: unknown revisit profile ${profile}`);
      report.revisits.push({ uri, status: r.status, refers_to_uri: target, profile });
    } else if (type === "revisit") {
      const original = ids.get(r.h.get("WARC-Refers-To"));
      if (!original)
        report.errors.push(`${where}: WARC-Refers-To names no record read`);
      else if (original.h.get("WARC-Payload-Digest") !== r.h.get("WARC-Payload-Digest") ||
               original.h.get("WARC-Target-URI") !== r.h.get("WARC-Refers-To-Target-URI") ||
               original.h.get("WARC-Date") !== r.h.get("WARC-Refers-To-Date"))
        report.errors.push(`${where}: does not match the record it refers to`);
      report.revisits.push({ uri, status: r.status, refers_to_uri: r.h.get("WARC-Refers-To-Target-URI"),
                             profile: r.h.get("WARC-Profile") });
    }
  }
  process.stdout.write(JSON.stringify(report, null, 1) + "\n");
  process.exit(report.errors.length === 0 ? 0 : 1);
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ errors: [String(e && e.stack || e)] }) + "\n");
  process.exit(1);
});
