// Browser test of the dashboard served by `actorcrawl serve`.
//
//   ACTORCRAWL_BIN=build/actorcrawl BROWSER_OUT=build/browser node dashboard.test.mjs
//
// Starts the service with the bundled demo web on loopback, opens the
// dashboard in headless Chromium (/usr/bin/chromium, driven by
// playwright-core), starts a crawl of the demo web from the form and follows
// it to the end, then compares what the page shows with the API. The
// extraction rules field is checked on the way (a typo is named in the page
// and sends nothing; valid rules go as the body's `extract`), and the crawl
// runs with a rule: the items table, first drawn while the job runs (a
// reload of the page mid-crawl), fills up by itself when the job ends, and
// the downloads offer the items (JSON Lines, and a CSV per kind). Once the
// crawl is over, items written into its database (with the sqlite3 command,
// when there is one) must appear in the items table, as text. Saves
// $BROWSER_OUT/dashboard.png. Exit codes: 0 passed, 1 failed (with a message
// saying what), 77 skipped (Chromium cannot start).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const MAX_PAGES = 50;
const CRAWL_RULES = [{ name: 'page', fields: { title: { css: 'title::text' } } }];
const DEMO_HOSTS = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];
const CRAWL_TIMEOUT_MS = 60_000;
const ITEMS = 130;  // more than the dashboard's first answer (100): "Load more" has something to load
// An item's value that would run script if it were ever parsed as HTML.
const HOSTILE = '<img src=x onerror="window.__itemXss=1">';
const TOTAL_TIMEOUT_MS = 180_000;
const TERMINAL_STATUSES = ['completed', 'cancelled', 'failed'];

const bin = process.env.ACTORCRAWL_BIN;
const outDir = resolve(process.env.BROWSER_OUT || join(tmpdir(), 'actorcrawl-browser'));

class Failure extends Error {}
class Skip extends Error {}

const cleanups = [];
let server = null;
let serverLog = '';
let stopping = false;

function log(msg) {
  process.stderr.write(`[browser-test] ${msg}\n`);
}

function fail(msg) {
  throw new Failure(msg);
}

// Starts the service and resolves with {serviceUrl, demoUrl} once both lines
// were printed.
function startServer(dbDir) {
  return new Promise((resolvePromise, reject) => {
    const args = ['serve', '--listen', '127.0.0.1:0', '--demo-web', '--allow-private-networks', '--db-dir', dbDir];
    log(`starting ${bin} ${args.join(' ')}`);
    server = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let serviceUrl = null;
    let demoUrl = null;
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      reject(new Failure(`the service did not print its URLs within 30 s; output:\n${tail(serverLog)}`));
    }, 30_000);
    const onData = (chunk) => {
      serverLog += chunk.toString();
      if (serverLog.length > 200_000) serverLog = serverLog.slice(-100_000);
      const s = /service listening on (http:\/\/\S+)/.exec(serverLog);
      const d = /demo web at (http:\/\/\S+)/.exec(serverLog);
      if (s) serviceUrl = s[1].replace(/\/+$/, '');
      if (d) demoUrl = d[1];
      if (serviceUrl && demoUrl && !settled) {
        settled = true;
        clearTimeout(timer);
        resolvePromise({ serviceUrl, demoUrl });
      }
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.on('error', (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Failure(`cannot start ${bin}: ${e.message}`));
    });
    server.on('exit', (code, signal) => {
      const wasRunning = server !== null;
      server = null;
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(new Failure(`the service exited (${signal || 'code ' + code}) before it was ready; output:\n${tail(serverLog)}`));
      } else if (wasRunning && !stopping) {
        log(`the service exited early (${signal || 'code ' + code})`);
      }
    });
  });
}

async function stopServer() {
  if (!server) return;
  stopping = true;
  const proc = server;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timeout = new Promise((r) => setTimeout(() => r('timeout'), 10_000));
  if ((await Promise.race([exited, timeout])) === 'timeout') {
    log('the service did not stop within 10 s of SIGTERM; killing it');
    proc.kill('SIGKILL');
    await exited;
  }
}

function tail(text, lines = 40) {
  return text.split('\n').slice(-lines).join('\n');
}

async function getJson(url) {
  const res = await fetch(url, { headers: { Accept: 'application/json' } });
  const body = await res.text();
  if (!res.ok) fail(`GET ${url} answered ${res.status}: ${body.slice(0, 500)}`);
  try {
    return JSON.parse(body);
  } catch (e) {
    fail(`GET ${url} did not answer JSON: ${body.slice(0, 500)}`);
  }
}

// Polls fn() until it returns a truthy value; fails with describe() after timeoutMs.
async function waitFor(fn, timeoutMs, describe) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) fail(await describe());
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function launchBrowser(userDataDir) {
  if (!existsSync(CHROMIUM)) throw new Skip(`${CHROMIUM} does not exist`);
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (e) {
    fail(`cannot load playwright-core (run npm ci in tests/browser): ${e.message}`);
  }
  try {
    return await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1440, height: 1000 },
      timeout: 60_000,
    });
  } catch (e) {
    throw new Skip(String(e.message || e).split('\n').slice(0, 3).join(' ').trim());
  }
}

// The extraction rules field: JSON that does not parse, or that is not an
// array, is named in the form's error box and nothing is sent; valid rules
// go as the body's `extract` (the POST is caught here and answered with an
// error, so no job starts and the crawl below is the test's only one).
async function checkExtractField(page, serviceUrl) {
  await page.locator('#more-options').evaluate((d) => { d.open = true; });
  const formError = async () => ((await page.locator('#form-error').textContent()) || '').trim();
  const errorShown = async (pattern) => !(await page.locator('#form-error').isHidden()) && pattern.test(await formError());
  await page.locator('#extract').fill('[{"name": "product",');
  await page.locator('#start').click();
  await waitFor(() => errorShown(/Extraction rules: not valid JSON/), 5_000,
    async () => `rules that do not parse: #form-error says "${await formError()}"`);
  if ((await page.locator('#extract').getAttribute('aria-invalid')) !== 'true') fail('#extract is not marked invalid');
  await page.locator('#extract').fill('{"name": "product"}');
  await page.locator('#start').click();
  await waitFor(() => errorShown(/Extraction rules: a JSON array/), 5_000,
    async () => `rules that are not an array: #form-error says "${await formError()}"`);
  const jobs = await getJson(`${serviceUrl}/crawl`);
  if (jobs.jobs.length !== 0) fail(`rules the page refused started ${jobs.jobs.length} job(s)`);

  const rules = [{ name: 'product', urls: '.*', fields: { title: 'h1' } }];
  let sent = null;
  const catchPost = async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    sent = route.request().postDataJSON();
    return route.fulfill({ status: 400, contentType: 'application/json',
      body: JSON.stringify({ error: { code: 'invalid_job', message: 'caught by the test' } }) });
  };
  await page.route(`${serviceUrl}/crawl`, catchPost);
  await page.locator('#extract').fill(JSON.stringify(rules, null, 2));
  await page.locator('#start').click();
  await waitFor(() => errorShown(/caught by the test/), 5_000,
    async () => `valid rules: #form-error says "${await formError()}"`);
  await page.unroute(`${serviceUrl}/crawl`, catchPost);
  if (!sent || JSON.stringify(sent.extract) !== JSON.stringify(rules))
    fail(`valid rules were sent as ${JSON.stringify(sent && sent.extract)}, expected ${JSON.stringify(rules)}`);
  await page.locator('#extract').fill('');
}

// Writes ITEMS items (kinds product and review, the HOSTILE name) and one
// processor failure into a finished job's database, as a crawl with rules
// and processors would have. False when there is no sqlite3 command.
function writeItems(dbPath) {
  if (spawnSync('sqlite3', ['-version']).status !== 0) return false;
  const quote = (text) => "'" + text.replace(/'/g, "''") + "'";
  const page = '(SELECT MIN(page_id) FROM pages)';
  const rows = [];
  for (let n = 0; n < ITEMS; n++) {
    const item = { n, name: HOSTILE, price: { amount: n, currency: 'EUR' } };
    rows.push(`(${page}, ${quote(n % 2 ? 'review' : 'product')}, ${quote(JSON.stringify(item))})`);
  }
  const sql = '.timeout 10000\nBEGIN;\n' +
    `INSERT INTO items(page_id, kind, item) VALUES ${rows.join(',\n')};\n` +
    `INSERT INTO processor_failures(page_id, processor, reason, detail, failed_at) VALUES (${page}, 'classifier', 'timeout', 'test', 0);\n` +
    'COMMIT;\n';
  const r = spawnSync('sqlite3', [dbPath], { input: sql, encoding: 'utf8' });
  if (r.status !== 0) fail(`sqlite3 ${dbPath} failed: ${r.stderr}`);
  return true;
}

// The job's items as the page shows them against what the API has: the
// card appears, the columns are url, kind and the first answer's fields,
// values are text (nothing from an item becomes markup), "Load more"
// follows next to the end.
async function checkItems(page, serviceUrl, jobId, extracted) {
  const base = `${serviceUrl}/crawl/${encodeURIComponent(jobId)}`;
  const total = (await getJson(base)).job.items_total;
  if (total !== ITEMS + extracted) fail(`the job has items_total ${total} after ${ITEMS} were written to its ${extracted}`);
  const first = await getJson(`${base}/items?offset=0&limit=100`);
  // The job was over when the page last read it: a reload reads it again.
  await page.reload({ waitUntil: 'load' });
  const card = page.locator('#items-card');
  await waitFor(
    async () => (await card.isVisible()) && (await page.locator('#items tr').count()) === first.items.length,
    10_000,
    async () => `#items-card visible: ${await card.isVisible()}, data-items-total ${await card.getAttribute('data-items-total')}, ` +
      `${await page.locator('#items tr').count()} rows; expected ${first.items.length} of the API's first answer`);
  const heads = await page.locator('#items-head th').allTextContents();
  const fields = [];
  for (const x of first.items) for (const k of Object.keys(x.item || {})) if (!fields.includes(k)) fields.push(k);
  if (JSON.stringify(heads) !== JSON.stringify(['url', 'kind', ...fields]))
    fail(`#items-head is ${JSON.stringify(heads)}, expected ${JSON.stringify(['url', 'kind', ...fields])}`);
  const cells = await page.locator('#items tr').first().locator('td').allTextContents();
  const want = first.items[0];
  const cellOf = (item, k) => !(k in item) ? '' : typeof item[k] === 'string' ? item[k] : JSON.stringify(item[k]);
  const expected = [null, want.kind, ...fields.map((k) => cellOf(want.item, k))];
  for (let i = 1; i < expected.length; i++)
    if (cells[i] !== expected[i]) fail(`the first item's cell ${i} shows ${JSON.stringify(cells[i])}, expected ${JSON.stringify(expected[i])}`);
  if ((await page.locator('#items img').count()) !== 0) fail('an item value became an <img> element in #items');
  if (await page.evaluate(() => window.__itemXss)) fail('an item value ran as script');
  const failures = ((await page.locator('#processor-failures').textContent()) || '').trim();
  if (!failures.includes('classifier timeout')) fail(`#processor-failures says "${failures}"`);

  let rows = first.items.length;
  let answer = first;
  while (answer.next) {
    answer = await getJson(serviceUrl + answer.next);
    rows += answer.items.length;
    await page.locator('#items-more').click();
    await waitFor(async () => (await page.locator('#items tr').count()) === rows, 10_000,
      async () => `after "Load more" #items has ${await page.locator('#items tr').count()} rows, expected ${rows}`);
  }
  if (rows !== total) fail(`following next read ${rows} items, expected ${total}`);
  if (!(await page.locator('#items-more').isHidden())) fail('"Load more" is still shown with every item loaded');
  return rows;
}

async function main() {
  if (!bin) fail('ACTORCRAWL_BIN is not set (the path of the built actorcrawl binary)');
  if (!existsSync(bin)) fail(`ACTORCRAWL_BIN=${bin} does not exist`);
  mkdirSync(outDir, { recursive: true });

  const work = mkdtempSync(join(tmpdir(), 'actorcrawl-browser-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const dbDir = join(work, 'db');
  const profileDir = join(work, 'chromium-profile');
  mkdirSync(dbDir);
  mkdirSync(profileDir);

  const { serviceUrl, demoUrl } = await startServer(dbDir);
  log(`service at ${serviceUrl}, demo web at ${demoUrl}`);

  const context = await launchBrowser(profileDir);
  cleanups.unshift(() => context.close().catch(() => {}));
  const page = context.pages()[0] || (await context.newPage());
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') log(`console error: ${m.text()}`);
  });

  const response = await page.goto(serviceUrl + '/', { waitUntil: 'load', timeout: 30_000 });
  if (!response || !response.ok()) fail(`GET ${serviceUrl}/ answered ${response ? response.status() : 'nothing'}`);
  for (const sel of ['#new-crawl-form', '#url', '#max-pages', '#start', '#jobs', '#graph', '#pages']) {
    if ((await page.locator(sel).count()) !== 1) fail(`the dashboard has no single ${sel} element`);
  }

  // The form offers the crawl's scope, as a job body does.
  const scopes = await page.locator('#scope option').evaluateAll((options) => options.map((o) => o.value));
  if (scopes.join(',') !== 'domain,host,any') fail(`#scope offers ${JSON.stringify(scopes)}, expected domain, host, any`);

  // The form is pre-filled with the demo web's URL from GET /api/info.
  await waitFor(
    () => page.locator('#url').inputValue().then((v) => v === demoUrl),
    10_000,
    async () => `#url is "${await page.locator('#url').inputValue()}", expected the demo URL "${demoUrl}"`);

  // The demo web spans three loopback hosts; the site profile stays on the
  // allowed domains, so allow all three (unless the page already did).
  if (!(await page.locator('#allowed-domains').inputValue())) {
    await page.locator('#more-options summary').click();
    await page.locator('#allowed-domains').fill(DEMO_HOSTS.join(', '));
  }
  await checkExtractField(page, serviceUrl);
  // A rule every HTML page of the demo web answers: its items are stored
  // as the crawl goes.
  await page.locator('#extract').fill(JSON.stringify(CRAWL_RULES));
  await page.locator('#max-pages').fill(String(MAX_PAGES));
  await page.locator('#start').click();

  // The new job gets selected: its id lands in the URL hash.
  const jobId = await waitFor(
    async () => {
      const hash = await page.evaluate(() => decodeURIComponent(location.hash.slice(1)));
      return hash || null;
    },
    10_000,
    async () => {
      const err = await page.locator('#form-error').textContent().catch(() => '');
      return `no job was selected after submitting the form${err ? ': ' + err.trim() : ''}`;
    });
  log(`started ${jobId}`);

  // Mid-crawl, once the job has items, the page is loaded again: it draws
  // the items table from what the job has then, a part of what it will have.
  let partial = 0;
  await waitFor(
    async () => {
      const j = (await getJson(`${serviceUrl}/crawl/${encodeURIComponent(jobId)}?limit=1`)).job;
      return (j.items_total > 0 || TERMINAL_STATUSES.includes(j.status)) && j;
    },
    CRAWL_TIMEOUT_MS,
    async () => 'the job stored no item while it ran');
  await page.reload({ waitUntil: 'load' });
  const runningJob = (await getJson(`${serviceUrl}/crawl/${encodeURIComponent(jobId)}?limit=1`)).job;
  if (!TERMINAL_STATUSES.includes(runningJob.status)) {
    await waitFor(async () => (partial = await page.locator('#items tr').count()) > 0, 10_000,
      async () => `the items table of the running job stayed empty (items_total ${runningJob.items_total})`);
  }

  const started = Date.now();
  const terminal = await waitFor(
    async () => {
      const s = ((await page.locator('#job-status').textContent()) || '').trim();
      return TERMINAL_STATUSES.includes(s) ? s : null;
    },
    CRAWL_TIMEOUT_MS,
    async () => {
      const s = ((await page.locator('#job-status').textContent()) || '').trim();
      const api = await getJson(`${serviceUrl}/crawl/${encodeURIComponent(jobId)}?limit=1`).catch((e) => ({ error: e.message }));
      return `#job-status is "${s}" after ${CRAWL_TIMEOUT_MS / 1000} s, not completed; ` +
        `the API says ${JSON.stringify(api.job ? { status: api.job.status, pages_fetched: api.job.pages_fetched } : api)}`;
    });
  log(`${jobId} ${terminal} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (terminal !== 'completed') {
    const api = await getJson(`${serviceUrl}/crawl/${encodeURIComponent(jobId)}?limit=1`);
    fail(`the crawl ended "${terminal}", expected completed (error: ${JSON.stringify(api.job && api.job.error)})`);
  }

  // The counters show what the API has.
  const api = await getJson(`${serviceUrl}/crawl/${encodeURIComponent(jobId)}?offset=0&limit=100`);
  const job = api.job;
  if (!job) fail(`GET /crawl/${jobId} has no "job" object`);
  if (job.status !== 'completed') fail(`the page shows completed but the API says "${job.status}"`);
  const shownFetched = async () => Number(((await page.locator('#count-fetched').textContent()) || '').replace(/[^0-9]/g, ''));
  await waitFor(
    async () => (await shownFetched()) === job.pages_fetched,
    5_000,
    async () => `#count-fetched shows ${await shownFetched()}, the API says pages_fetched ${job.pages_fetched}`);
  if (!(job.pages_fetched > 5)) fail(`only ${job.pages_fetched} pages fetched from the demo web, expected more than 5`);
  const shownFailed = Number(((await page.locator('#count-failed').textContent()) || '').replace(/[^0-9]/g, ''));
  if (shownFailed !== job.pages_failed) fail(`#count-failed shows ${shownFailed}, the API says ${job.pages_failed}`);
  // What the fetches found: a first crawl's pages are all new.
  const changes = page.locator('#count-changes');
  for (const k of ['new', 'changed', 'unchanged', 'gone']) {
    const shown = Number(await changes.getAttribute(`data-${k}`));
    if (shown !== job[`pages_${k}`]) fail(`#count-changes data-${k} is ${shown}, the API says ${job[`pages_${k}`]}`);
  }
  if (job.pages_new !== job.pages_fetched) fail(`pages_new is ${job.pages_new}, expected every page fetched (${job.pages_fetched})`);
  // The demo web has fewer pages than the form's max_pages: the job ran out
  // of pages in scope, and the progress bar says so, full.
  if (job.pages_fetched < job.max_pages) {
    const progress = ((await page.locator('#job-progress-text').textContent()) || '').trim();
    if (!progress.includes(`${job.pages_fetched} pages · every page in scope crawled`))
      fail(`#job-progress-text is "${progress}" for a completed job of ${job.pages_fetched} of max ${job.max_pages} pages`);
    const width = await page.locator('#job-bar > span').evaluate((el) => el.style.width);
    if (parseFloat(width) !== 100) fail(`the progress bar of a completed job is ${width} wide, not full`);
  }

  // The job list has the job, marked completed.
  await waitFor(
    async () => (await page.locator(`#jobs [data-job-id="${jobId}"]`).getAttribute('data-status').catch(() => null)) === 'completed',
    5_000,
    async () => `#jobs has no row data-job-id="${jobId}" with data-status="completed"`);

  // The domain graph was drawn from GET /crawl/:id/graph.
  const graphApi = await getJson(`${serviceUrl}/crawl/${encodeURIComponent(jobId)}/graph`);
  const graphCounts = async () => ({
    nodes: Number(await page.locator('#graph').getAttribute('data-nodes')),
    edges: Number(await page.locator('#graph').getAttribute('data-edges')),
  });
  await waitFor(
    async () => {
      const c = await graphCounts();
      return c.nodes >= 3 && c.edges >= 3;
    },
    10_000,
    async () => {
      const c = await graphCounts();
      return `#graph has ${c.nodes} nodes and ${c.edges} edges, expected at least 3 of each ` +
        `(the API has ${(graphApi.nodes || []).length} nodes, ${(graphApi.edges || []).length} edges)`;
    });

  // The pages table has rows.
  const rows = await page.locator('#pages tr[data-url]').count();
  if (rows < 1) fail('#pages has no page rows');
  if (rows > 50) fail(`#pages has ${rows} rows, expected at most 50`);
  const expectedRows = Math.min(50, job.pages_total != null ? job.pages_total : (job.pages || []).length);
  if (rows !== expectedRows) log(`note: #pages has ${rows} rows, the API has ${job.pages_total} pages`);

  // The items table filled up by itself when the job ended: no click, all
  // of the first hundred (the job had fewer), "showing N of N".
  const extracted = job.items_total;
  if (!(extracted >= 5)) fail(`the crawl's rule took ${extracted} items, expected one per HTML page of the demo web`);
  await waitFor(async () => (await page.locator('#items tr').count()) === Math.min(extracted, 100), 10_000,
    async () => `after the job ended #items has ${await page.locator('#items tr').count()} rows (it had ${partial} ` +
      `mid-crawl), expected ${Math.min(extracted, 100)} of items_total ${extracted} without a click`);
  const hint = ((await page.locator('#items-hint').textContent()) || '').trim();
  if (!hint.endsWith(`showing ${extracted} of ${extracted}`)) fail(`#items-hint says "${hint}" for ${extracted} items`);
  if (partial > 0 && partial < extracted) log(`items table: ${partial} rows mid-crawl, ${extracted} at the end`);
  else log(`note: the items table had ${partial} rows mid-crawl, of ${extracted}: the refill was not exercised`);

  // The download links: one per export, each answering the job's export,
  // and one CSV per kind of item.
  const exportLinks = await page.locator('#export-links a').evaluateAll((as) => as.map((a) => a.href));
  if (exportLinks.length !== 10) fail(`#export-links has ${exportLinks.length} links, expected 10: ${exportLinks.join(' ')}`);
  if (!exportLinks.some((href) => /format=changes/.test(href))) fail('#export-links has no changes link');
  const itemsLink = exportLinks.find((href) => /format=items(&|$)/.test(href));
  if (!itemsLink) fail('#export-links has no items link');
  const itemLines = (await (await fetch(itemsLink)).text()).split('\n').filter((l) => l);
  if (itemLines.length !== extracted) fail(`${itemsLink} gave ${itemLines.length} lines, expected ${extracted}`);
  const csvLink = exportLinks.find((href) => /format=items-csv&kind=page(&|$)/.test(href));
  if (!csvLink) fail('#export-links has no CSV link for the items of kind page');
  const csv = await (await fetch(csvLink)).text();
  if (!csv.startsWith('url,title')) fail(`${csvLink} starts "${csv.slice(0, 40)}", expected the columns url,title`);
  const jsonlLink = exportLinks.find((href) => /format=jsonl/.test(href));
  if (!jsonlLink) fail('#export-links has no JSON Lines link');
  const exported = await fetch(jsonlLink);
  const exportedBody = await exported.text();
  const exportedLines = exportedBody.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  if (exported.status !== 200 || exportedLines.length !== job.pages_total) {
    fail(`${jsonlLink} answered ${exported.status} with ${exportedLines.length} lines, ` +
      `expected 200 and ${job.pages_total} (the job's pages)`);
  }

  let items = 'not checked (no sqlite3 command to write them)';
  if (writeItems(join(dbDir, 'jobs', `${jobId}.db`))) items = `${await checkItems(page, serviceUrl, jobId, extracted)} item rows`;
  else log(`note: items ${items}`);

  if (pageErrors.length) fail(`the page threw: ${pageErrors.join('; ')}`);

  // Let the graph layout settle before the picture.
  await page.waitForTimeout(1500);
  const shot = join(outDir, 'dashboard.png');
  await page.screenshot({ path: shot, fullPage: true });
  const c = await graphCounts();
  log(`screenshot: ${shot}`);
  console.log(`passed: ${jobId} completed with ${job.pages_fetched} pages fetched, ${job.pages_failed} failed; ` +
    `graph ${c.nodes} nodes, ${c.edges} edges; ${rows} page rows; ${items}`);
}

async function cleanup() {
  for (const f of cleanups) {
    try {
      await f();
    } catch (e) {
      /* best effort */
    }
  }
  await stopServer().catch(() => {});
}

const watchdog = setTimeout(async () => {
  process.stderr.write(`FAILED: the browser test took longer than ${TOTAL_TIMEOUT_MS / 1000} s\n`);
  await cleanup();
  process.exit(1);
}, TOTAL_TIMEOUT_MS);

let code = 0;
try {
  await main();
} catch (e) {
  if (e instanceof Skip) {
    console.log(`skipped: chromium cannot start: ${e.message}`);
    code = 77;
  } else {
    process.stderr.write(`FAILED: ${e instanceof Failure ? e.message : e.stack || e}\n`);
    if (serverLog && !(e instanceof Failure && /output:\n/.test(e.message))) {
      process.stderr.write(`--- service output (last lines) ---\n${tail(serverLog)}\n`);
    }
    code = 1;
  }
}
await cleanup();
clearTimeout(watchdog);
process.exit(code);
