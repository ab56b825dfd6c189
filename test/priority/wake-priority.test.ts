/** Which priority each loop step's registry calls carry (src/workflows/entity/stubs.ts). */
import { describe, expect, it } from 'vitest';
import { registryPriorityKeys, wakePriority } from '../../src/workflows/entity/stubs.js';

describe('wakePriority', () => {
  it('orders operator before webhook before orders before polls and timers', () => {
    expect(wakePriority('operator')).toBe('operator');
    expect(wakePriority('webhook')).toBe('webhook');
    expect(wakePriority('start')).toBe('order');
    expect(wakePriority('workflow')).toBe('order');
    expect(wakePriority('poll')).toBe('poll');
    expect(wakePriority('timer')).toBe('poll');
    const keys = (['operator', 'webhook', 'order', 'poll', 'bulk'] as const).map(
      (p) => registryPriorityKeys[p],
    );
    expect(keys).toEqual([1, 2, 3, 4, 5]);
  });

  it('keeps an entity still being ordered at order priority when a poll or timer drives it', () => {
    expect(wakePriority('poll', true)).toBe('order');
    expect(wakePriority('timer', true)).toBe('order');
    expect(wakePriority('webhook', true)).toBe('webhook');
    expect(wakePriority('operator', true)).toBe('operator');
  });
});
