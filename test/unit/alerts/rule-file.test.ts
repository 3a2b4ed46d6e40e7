import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ALERT_GAUGES } from '../../../src/alerts/metrics.js';
import { ALERT_RULES } from '../../../src/alerts/policy.js';

const FILE = join(import.meta.dirname, '..', '..', '..', 'otel', 'prometheus', 'alerts.yml');

interface RuleFile {
  groups: { name: string; rules: { alert: string; expr: string; for?: string; annotations?: object }[] }[];
}

describe('the example Prometheus rule file', () => {
  const alerts = (parse(readFileSync(FILE, 'utf8')) as RuleFile).groups.flatMap((g) => g.rules);
  const declared = new Set([...ALERT_GAUGES.map((g) => g.name), 'mrtq_alerts_evaluation_failures_total']);

  it('uses only metrics the alert rules expose', () => {
    const used = alerts.flatMap((a) => a.expr.match(/mrtq_[a-z_]+/g) ?? []);
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((name) => !declared.has(name))).toEqual([]);
  });

  it('has an alert for every rule, each with `for:` and annotations', () => {
    const ruleOf = (expr: string) => /rule="([a-z_]+)"/.exec(expr)?.[1];
    expect(alerts.map((a) => ruleOf(a.expr)).filter(Boolean)).toEqual([...ALERT_RULES]);
    for (const alert of alerts) {
      expect(alert.for, alert.alert).toBeDefined();
      expect(alert.annotations, alert.alert).toHaveProperty('summary');
    }
  });
});
