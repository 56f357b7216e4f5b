import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withSubsetFonts } from "#src/reports/font-subset";
import { chartFonts } from "#src/reports/fonts";

// A file of its own: the subsets' directory is made once per process, at the first chart.
describe("the chart's fonts without a writable temporary directory", () => {
  const run = chartFonts().latin !== null || process.env.CI === "true";
  const skipped = run ? "" : " (skipped: DejaVu Sans is not installed; apt-get install fonts-dejavu-core)";
  it.runIf(run)(`draws with the whole fonts instead of failing the chart${skipped}`, async () => {
    const latin = chartFonts().latin!;
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = join("/nonexistent", "no-such-directory");
    try {
      const used = await withSubsetFonts([latin], "Daily spending", (files) => files);
      expect(used).toEqual([latin]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});
