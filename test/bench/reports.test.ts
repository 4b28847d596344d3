/**
 * Issue 33, items 12 and 13: each bench page and its charts are written from that bench's own
 * JSON (bench/results/, bench/fullstack/results/), stamped with the run's date, commit and load.
 * Regenerated here into a scratch folder from the committed JSON, they are byte for byte the
 * committed pages and charts: a chart or table edited by hand, or a page left behind its results,
 * fails.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { writeEmbeddedReport, type EmbeddedResults } from '../../bench/embedded/report.ts';
import { writeFullstackReport } from '../../bench/fullstack/report/page.ts';
import { readResults } from '../../bench/fullstack/results.ts';
import { writeRaceReport, type RaceResults } from '../../bench/race/report.ts';
import { writeReadme } from '../../bench/report/readme.ts';
import type { BenchResults } from '../../bench/report/results.ts';

const bench = join(import.meta.dirname, '../../bench');
const json = <T>(path: string) => JSON.parse(readFileSync(join(bench, path), 'utf8')) as T;
const scratch = mkdtempSync(join(tmpdir(), 'cachette-bench-pages-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The pages and charts of bench/ that a bench writes: its .md reports and .svg charts. */
const written = (dir: string) => [...readdirSync(dir).filter((name) => /\.(md|svg)$/.test(name)), ...readdirSync(join(dir, 'fullstack/charts')).map((name) => `fullstack/charts/${name}`)];

describe('the bench pages and charts', () => {
  it('are what their JSON gives, stamped with date, commit and load', () => {
    // bench/README.md's cluster section comes from the cluster bench's own JSON, read beside the page.
    cpSync(join(bench, 'results/cluster.json'), join(scratch, 'results/cluster.json'));
    // The race page first: bench/README.md links it when it is there.
    writeRaceReport(scratch, json<RaceResults>('results/race.json'));
    writeReadme(scratch, json<BenchResults>('results/full.json'), 'results/full.json');
    writeEmbeddedReport(scratch, json<EmbeddedResults>('results/embedded.json'), 'results/embedded.json');
    writeFullstackReport(readResults(join(bench, 'fullstack/results/full.json')), scratch);
    const files = written(bench).sort();
    assert.deepEqual(written(scratch).sort(), files, 'every committed page and chart is written by a bench, and only those');
    const differ = files.filter((file) => readFileSync(join(scratch, file), 'utf8') !== readFileSync(join(bench, file), 'utf8'));
    assert.deepEqual(differ, [], 'pages and charts that are not what their JSON gives');
    for (const file of files) {
      const page = readFileSync(join(bench, file), 'utf8');
      if (file.endsWith('.svg')) assert.match(page, /\d{4}-\d\d-\d\d \d\d:\d\d UTC · commit [0-9a-f]{7,} · load \d/, `${file} carries its run`);
    }
  });
});
