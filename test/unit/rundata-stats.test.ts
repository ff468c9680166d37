import { describe, expect, it } from 'vitest';
import { aggregate, mean, percentile, round2, stddev } from '../../src/server/rundata/stats.js';

describe('percentile (nearest rank)', () => {
  const times = [120, 85, 300, 95, 110, 101, 90, 250, 130, 99, 105, 180, 97, 115, 88, 140, 92, 125, 160, 1000];
  it('takes sorted[ceil(p/100*n)-1]', () => {
    // sorted: 85 88 90 92 95 97 99 101 105 110 115 120 125 130 140 160 180 250 300 1000
    expect(percentile(times, 95)).toBe(300); // ceil(19) = 19th
    expect(percentile(times, 99)).toBe(1000); // ceil(19.8) = 20th
    expect(percentile(times, 90)).toBe(250); // ceil(18) = 18th
    expect(percentile(times, 50)).toBe(110); // 10th
    // 7% of 100 is exactly rank 7, not 8 (0.07 * 100 is 7.000000000000001 in binary).
    expect(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 7)).toBe(7);
  });
  it('handles the edges', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([7], 1)).toBe(7);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4, 5], 50)).toBe(3);
    expect(percentile([3, 1, 2], 0)).toBe(1);
  });
  it('does not reorder its input', () => {
    const v = [3, 1, 2];
    percentile(v, 50);
    expect(v).toEqual([3, 1, 2]);
  });
});

describe('mean, stddev, round2', () => {
  it('computes the population standard deviation', () => {
    expect(stddev([2, 4, 4, 4, 5, 5, 7, 9])).toBe(2);
    expect(stddev([5])).toBe(0);
    expect(stddev([])).toBeNull();
    expect(mean([])).toBeNull();
  });
  it('rounds to 2 decimals', () => {
    expect(round2(1.005)).toBe(1.01);
    expect(round2(2 / 3)).toBe(0.67);
    expect(round2(10)).toBe(10);
  });
  it('aggregates by name, null for an empty sample', () => {
    const v = [10, 20, 30, 45];
    expect(aggregate(v, 'avg')).toBe(26.25);
    expect(aggregate(v, 'median')).toBe(20);
    expect(aggregate(v, 'p50')).toBe(20);
    expect(aggregate(v, 'min')).toBe(10);
    expect(aggregate(v, 'max')).toBe(45);
    expect(aggregate(v, 'sum')).toBe(105);
    expect(aggregate(v, 'stddev')).toBe(12.93);
    for (const how of ['avg', 'max', 'median', 'min', 'p50', 'p90', 'p95', 'p99', 'stddev', 'sum'] as const) {
      expect(aggregate([], how)).toBeNull();
    }
  });
});
