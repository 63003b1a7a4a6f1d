"""Background jobs (arq on Redis, or in-process without FW_REDIS_URL) and the scheduler."""
