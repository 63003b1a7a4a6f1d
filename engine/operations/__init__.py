"""Operating a site: backup (`backup`), restore (`restore`), scheduled backups (`scheduled`), the
backup key (`keys`), the backup's files (`layout`, `crypto`)."""
