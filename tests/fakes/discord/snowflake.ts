// Discord ids carry their creation time (discord.js reads interaction ages from them), so the fake makes real ones.

const DISCORD_EPOCH = 1_420_070_400_000n;

export class Snowflakes {
  #increment = 0n;

  next(now = Date.now()): string {
    this.#increment = (this.#increment + 1n) & 0xfffn;
    return (((BigInt(now) - DISCORD_EPOCH) << 22n) | (1n << 17n) | this.#increment).toString();
  }
}

/** The creation time (ms since 1970) a snowflake carries. */
export function snowflakeTime(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH);
}
