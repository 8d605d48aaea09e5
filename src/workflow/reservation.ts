import type { CallTicket, ToolHost } from '../host/tool-host.js';

/**
 * The run's places in the host's model order, taken in the order the steps are in: the cells of
 * a matrix known only at run time are placed before their group once it expands them, so the
 * order stays the order a reader of the file expects. Taking places stops at such a group until
 * it has expanded; the steps after it wait for theirs (they could not start before it anyway:
 * a step starts only once every earlier step is declared).
 */
export class Reservation {
  /** Step indices in model order: those placed, then those waiting. */
  readonly #sequence: number[];
  #placed = 0;
  readonly #tickets = new Map<number, { ticket: CallTicket; position: number }>();
  readonly #waiting = new Map<number, (() => void)[]>();
  /** The tickets in model order, as far as they are placed. */
  readonly order: CallTicket[] = [];

  constructor(
    private readonly host: Pick<ToolHost, 'reserve'>,
    count: number,
    /** Whether the step at an index is a matrix group whose cells are not known yet. */
    private readonly expanding: (index: number) => boolean,
  ) {
    this.#sequence = Array.from({ length: count }, (_, index) => index);
    this.#advance();
  }

  /** The step's ticket and its place in model order, once the steps before it have theirs. */
  async placeOf(index: number): Promise<{ ticket: CallTicket; position: number }> {
    for (let placed = this.#tickets.get(index); ; placed = this.#tickets.get(index)) {
      if (placed) return placed;
      await this.#next(index);
    }
  }

  /** Settles once every step before the step at `index` has its place (it is the next to be placed). */
  async reached(index: number): Promise<void> {
    while (this.#sequence[this.#placed] !== index && !this.#tickets.has(index)) await this.#next(index);
  }

  /** The cells of the group that is next to be placed: they go before it, and placing goes on. */
  expanded(cells: readonly number[]): void {
    this.#sequence.splice(this.#placed, 0, ...cells);
    this.#advance();
  }

  #next(index: number): Promise<void> {
    return new Promise((resolve) => {
      const list = this.#waiting.get(index) ?? [];
      list.push(resolve);
      this.#waiting.set(index, list);
    });
  }

  #advance(): void {
    for (; this.#placed < this.#sequence.length; this.#placed++) {
      const index = this.#sequence[this.#placed]!;
      if (this.expanding(index)) break;
      const ticket = this.host.reserve();
      this.#tickets.set(index, { ticket, position: this.order.length });
      this.order.push(ticket);
    }
    // Every waiter looks again: its own step may be placed, or be the one placing stopped at.
    const waiting = [...this.#waiting.values()].flat();
    this.#waiting.clear();
    for (const resolve of waiting) resolve();
  }
}
