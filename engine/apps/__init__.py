"""The app machinery: installed apps (`installed`), their doctypes, controllers and hooks resolved
into an `AppRegistry` (`loader`, `registry`), whitelisted functions (`whitelisted`), dotted paths
(`callables`), installing apps (`installer`) and their fixtures (`fixtures`)."""
