export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  target?: string;
  ok?: boolean;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
