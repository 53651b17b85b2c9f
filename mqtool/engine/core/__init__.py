"""The message core: what every queue manager does with a message, whatever its
platform. Resolution (alias, remote, transmission header), put/get/browse order and
selection, expiry, persistence, units of work and reason codes live here; what a
message costs to store, what "full" means and which figures move belong to the
platform's storage model (`model.StorageModel`), which registers with the core. The
core never imports a storage model."""
