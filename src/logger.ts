import { pino, type Logger } from 'pino';

/** The one root logger; modules take `logger.child({ component })`. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return destination ? pino({ level }, destination) : pino({ level });
}

export type { Logger };
