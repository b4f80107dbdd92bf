/** The benchmark's final table: each figure against its target, met or missed. */

export type Verdict = 'met' | 'missed' | 'skipped' | 'info';

export interface SummaryRow {
  figure: string;
  target: string;
  value: string;
  verdict: Verdict;
}

export class Summary {
  readonly rows: SummaryRow[] = [];

  add(figure: string, target: string, value: string, verdict: Verdict | boolean): void {
    this.rows.push({ figure, target, value, verdict: typeof verdict === 'boolean' ? (verdict ? 'met' : 'missed') : verdict });
  }

  print(): void {
    const cols = [
      ['figure', ...this.rows.map((r) => r.figure)],
      ['target', ...this.rows.map((r) => r.target)],
      ['measured', ...this.rows.map((r) => r.value)],
      ['', ...this.rows.map((r) => r.verdict)],
    ];
    const widths = cols.map((c) => Math.max(...c.map((s) => s.length)));
    const line = (i: number) =>
      cols
        .map((c, j) => c[i]!.padEnd(widths[j]!))
        .join('  ')
        .trimEnd();
    console.log('\nSummary');
    console.log(line(0));
    console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    for (let i = 1; i <= this.rows.length; i++) console.log(line(i));
  }

  get missed(): number {
    return this.rows.filter((r) => r.verdict === 'missed').length;
  }
}
