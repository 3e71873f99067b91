import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import type { Logger } from 'pino';
import { contextOfWorkflowId } from './logger';

const LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

/**
 * Temporal's logger (SDK, workflows through the sink, activities' Context.log, forwarded core logs)
 * written through the process's pino logger, with the workflow id, the workspace and the step
 * (activity type, else workflow type) as fields of their own.
 */
export class PinoTemporalLogger implements TemporalLogger {
  constructor(private readonly logger: Logger) {}

  log(level: LogLevel, message: string, meta: LogMetadata = {}): void {
    const { workflowId, activityType, workflowType, error, ...rest } = meta as Record<string, unknown>;
    const fields: Record<string, unknown> = {
      ...contextOfWorkflowId(typeof workflowId === 'string' ? workflowId : undefined),
      ...((activityType ?? workflowType) ? { step: activityType ?? workflowType } : {}),
      ...rest,
    };
    if (error !== undefined) fields.err = error;
    this.logger[LEVEL[level] ?? 'info'](fields, message);
  }

  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}
