//! Storage migration: after a kind's storage version changes, its objects stay in etcd at the
//! version they were written in, and `status.storedVersions` keeps listing that version, so the
//! API server refuses to drop it from the CRD. [`migrate`] rewrites every object at the storage
//! version, then sets `storedVersions` to the storage version alone.
//!
//! It is kube-storage-version-migrator's algorithm (`pkg/migrator/core.go`): list in chunks
//! (500), and for each object a no-op update (the object as read, `resourceVersion` included),
//! which the API server re-encodes at the storage version; a conflict means someone wrote the
//! object since the list, so it is read again and the update retried; an object deleted in
//! the meantime counts as done. The list and the updates are at the storage version, so no
//! object goes through a conversion and back. Unlike the migrator, it then writes
//! `status.storedVersions` itself, with the CRD's `resourceVersion` as a precondition and only
//! if the storage version is still the one it migrated to.
//!
//! Safe to run again (a rewrite of an object already at the storage version changes nothing in
//! etcd; a kind whose `storedVersions` already is the storage version alone is left alone) and
//! safe to interrupt: `storedVersions` is written last, after every object was rewritten, so an
//! interrupted run leaves it as it was, and the next run starts over.
//!
//! Run it once every API server uses the new storage version (on an HA control plane, the CRD
//! update reaches each API server a moment apart: an object written in that moment by a server
//! that still has the old storage version would be missed).
//!
//! It needs, for the client it is given: `get` on the kind's CRD and `patch` on its status
//! (group `apiextensions.k8s.io`), and `list`, `get` and `update` on the kind's resource in
//! every namespace:
//!
//! ```text
//! #[rbac(groups = "apiextensions.k8s.io", resources = "customresourcedefinitions", verbs = "get", resource_names = "memcacheds.cache.example.com")]
//! #[rbac(groups = "apiextensions.k8s.io", resources = "customresourcedefinitions/status", verbs = "patch", resource_names = "memcacheds.cache.example.com")]
//! #[rbac(groups = "cache.example.com", resources = "memcacheds", verbs = "get;list;update")]
//! ```

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::{Client, Resource};
use std::fmt;

/// kube-storage-version-migrator's chunk (`defaultChunkLimit`).
const DEFAULT_CHUNK: u32 = 500;
/// How often one object's update is retried after conflicts before giving up on it.
const CONFLICT_RETRIES: u32 = 10;

/// Migrates the kind of `K` (any of its versions' types): every object rewritten at the storage
/// version, then `status.storedVersions` set to it alone. See [`Migration`] for the chunk size
/// and progress reports.
pub async fn migrate<K>(client: &Client) -> Result<Migrated, MigrationError>
where
    K: Resource<DynamicType = ()>,
{
    Migration::new(client.clone()).run::<K>().await
}

/// How far a migration is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// Objects listed so far.
    pub listed: u64,
    /// Objects rewritten at the storage version.
    pub rewritten: u64,
    /// Objects deleted between the list and their update (done: nothing left to migrate).
    pub gone: u64,
    /// Updates retried after a conflict.
    pub conflicts: u64,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} listed, {} rewritten, {} deleted meanwhile, {} conflicts retried",
            self.listed, self.rewritten, self.gone, self.conflicts
        )
    }
}

/// What a migration did: [`migrate`]'s answer, for the operator to log (`{migrated:?}`) or
/// check (`progress.rewritten` objects rewritten, `stored_before` the `storedVersions` it
/// trimmed).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Migrated {
    /// The CRD (`memcacheds.cache.example.com`).
    pub crd: String,
    /// The storage version, now `status.storedVersions` alone.
    pub storage_version: String,
    /// `status.storedVersions` before.
    pub stored_before: Vec<String>,
    /// The objects; all zero when `storedVersions` already was the storage version alone.
    pub progress: Progress,
}

/// Why a migration stopped. `storedVersions` is then as it was.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MigrationError {
    /// Reading or writing the CRD failed.
    #[error("storage migration of {crd}: {action} the CRD: {source}")]
    Crd {
        /// The CRD's name.
        crd: String,
        /// `reading` or `setting status.storedVersions of`.
        action: &'static str,
        /// The API server's error.
        #[source]
        source: kube::Error,
    },
    /// The CRD has no storage version (the API server never allows this).
    #[error("storage migration of {crd}: the CRD has no storage version")]
    NoStorageVersion {
        /// The CRD's name.
        crd: String,
    },
    /// Listing the objects failed.
    #[error("storage migration of {crd}: listing the objects at {version}: {source}")]
    List {
        /// The CRD's name.
        crd: String,
        /// The storage version.
        version: String,
        /// The API server's error.
        #[source]
        source: kube::Error,
    },
    /// Rewriting one object failed (or kept conflicting).
    #[error("storage migration of {crd}: rewriting {object}: {reason}")]
    Object {
        /// The CRD's name.
        crd: String,
        /// `namespace/name`, or `name` for a cluster-scoped kind.
        object: String,
        /// The API server's error, or the conflicts that did not stop.
        reason: String,
    },
    /// The storage version changed while the objects were rewritten.
    #[error(
        "storage migration of {crd}: the storage version changed from {from} to {to} during the \
         migration; run it again"
    )]
    StorageChanged {
        /// The CRD's name.
        crd: String,
        /// The version the objects were rewritten at.
        from: String,
        /// The storage version now.
        to: String,
    },
}

/// What [`Migration::on_progress`] is given.
type ProgressReport = Box<dyn FnMut(&Progress) + Send>;

/// A storage migration, with its options.
pub struct Migration {
    client: Client,
    chunk: u32,
    progress: Option<ProgressReport>,
}

impl fmt::Debug for Migration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Migration")
            .field("chunk", &self.chunk)
            .finish_non_exhaustive()
    }
}

impl Migration {
    /// A migration through `client`, in chunks of 500.
    pub fn new(client: Client) -> Self {
        Migration {
            client,
            chunk: DEFAULT_CHUNK,
            progress: None,
        }
    }

    /// Lists `chunk` objects at a time (at least 1).
    pub fn chunk(mut self, chunk: u32) -> Self {
        self.chunk = chunk.max(1);
        self
    }

    /// Calls `report` after each chunk and at the end.
    pub fn on_progress(mut self, report: impl FnMut(&Progress) + Send + 'static) -> Self {
        self.progress = Some(Box::new(report));
        self
    }

    /// Migrates the kind of `K`.
    pub async fn run<K>(self) -> Result<Migrated, MigrationError>
    where
        K: Resource<DynamicType = ()>,
    {
        let name = format!("{}.{}", K::plural(&()), K::group(&()));
        self.run_crd(&name).await
    }

    /// Migrates the kind of the CRD `name` (`memcacheds.cache.example.com`).
    pub async fn run_crd(mut self, name: &str) -> Result<Migrated, MigrationError> {
        let crds: Api<CustomResourceDefinition> = Api::all(self.client.clone());
        let crd_error = |action, source| MigrationError::Crd {
            crd: name.to_string(),
            action,
            source,
        };
        let crd = crds.get(name).await.map_err(|e| crd_error("reading", e))?;
        let storage = storage_version(&crd).ok_or_else(|| MigrationError::NoStorageVersion {
            crd: name.to_string(),
        })?;
        let stored_before = stored_versions(&crd);
        let mut progress = Progress::default();
        if stored_before == [storage.clone()] {
            self.report(&progress);
            return Ok(Migrated {
                crd: name.to_string(),
                storage_version: storage,
                stored_before,
                progress,
            });
        }
        let resource = ApiResource {
            group: crd.spec.group.clone(),
            version: storage.clone(),
            api_version: format!("{}/{storage}", crd.spec.group),
            kind: crd.spec.names.kind.clone(),
            plural: crd.spec.names.plural.clone(),
        };
        let namespaced = crd.spec.scope == "Namespaced";
        self.rewrite_all(name, &resource, namespaced, &mut progress)
            .await?;
        self.report(&progress);
        self.set_stored_versions(name, &storage).await?;
        Ok(Migrated {
            crd: name.to_string(),
            storage_version: storage,
            stored_before,
            progress,
        })
    }

    fn report(&mut self, progress: &Progress) {
        if let Some(report) = &mut self.progress {
            report(progress);
        }
    }

    /// Every object, a chunk at a time, rewritten.
    async fn rewrite_all(
        &mut self,
        crd: &str,
        resource: &ApiResource,
        namespaced: bool,
        progress: &mut Progress,
    ) -> Result<(), MigrationError> {
        let all: Api<DynamicObject> = Api::all_with(self.client.clone(), resource);
        let mut token: Option<String> = None;
        loop {
            let mut params = ListParams::default().limit(self.chunk);
            if let Some(t) = &token {
                params = params.continue_token(t);
            }
            let list = match all.list(&params).await {
                Ok(list) => list,
                // The continue token expired (etcd compacted past it): the API server offers
                // one that goes on from the same key, inconsistent with the list's start, which
                // is all a migration needs (objects written since are at the storage version).
                // Without one, start over: rewriting an object twice is harmless.
                Err(kube::Error::Api(status)) if status.code == 410 && token.is_some() => {
                    token = status
                        .metadata
                        .as_ref()
                        .and_then(|m| m.continue_.clone())
                        .filter(|t| !t.is_empty());
                    continue;
                }
                Err(source) => {
                    return Err(MigrationError::List {
                        crd: crd.to_string(),
                        version: resource.version.clone(),
                        source,
                    });
                }
            };
            progress.listed += list.items.len() as u64;
            for object in list.items {
                self.rewrite(crd, resource, namespaced, object, progress)
                    .await?;
            }
            self.report(progress);
            token = list.metadata.continue_.filter(|t| !t.is_empty());
            if token.is_none() {
                return Ok(());
            }
        }
    }

    /// One object's no-op update, retried with the object read again after a conflict.
    async fn rewrite(
        &self,
        crd: &str,
        resource: &ApiResource,
        namespaced: bool,
        mut object: DynamicObject,
        progress: &mut Progress,
    ) -> Result<(), MigrationError> {
        let name = object.metadata.name.clone().unwrap_or_default();
        let namespace = object.metadata.namespace.clone().unwrap_or_default();
        let api: Api<DynamicObject> = if namespaced {
            Api::namespaced_with(self.client.clone(), &namespace, resource)
        } else {
            Api::all_with(self.client.clone(), resource)
        };
        let failed = |reason: String| MigrationError::Object {
            crd: crd.to_string(),
            object: if namespaced {
                format!("{namespace}/{name}")
            } else {
                name.clone()
            },
            reason,
        };
        for _ in 0..=CONFLICT_RETRIES {
            // A list's items may lack their type; the update needs it.
            object.types = Some(kube::api::TypeMeta {
                api_version: resource.api_version.clone(),
                kind: resource.kind.clone(),
            });
            match api.replace(&name, &PostParams::default(), &object).await {
                Ok(_) => {
                    progress.rewritten += 1;
                    return Ok(());
                }
                Err(kube::Error::Api(status)) if status.code == 404 => {
                    progress.gone += 1;
                    return Ok(());
                }
                Err(kube::Error::Api(status)) if status.code == 409 => {
                    progress.conflicts += 1;
                    match api.get(&name).await {
                        Ok(fresh) => object = fresh,
                        Err(kube::Error::Api(status)) if status.code == 404 => {
                            progress.gone += 1;
                            return Ok(());
                        }
                        Err(e) => return Err(failed(format!("reading it again: {e}"))),
                    }
                }
                Err(e) => return Err(failed(e.to_string())),
            }
        }
        Err(failed(format!(
            "{} conflicting writes in a row; it is being written all the time, run again later",
            CONFLICT_RETRIES + 1
        )))
    }

    /// `status.storedVersions: [storage]`, if the storage version is still `storage`, with the
    /// CRD's `resourceVersion` as a precondition (retried when the CRD changed meanwhile, as an
    /// object's update is).
    async fn set_stored_versions(&self, crd: &str, storage: &str) -> Result<(), MigrationError> {
        let crds: Api<CustomResourceDefinition> = Api::all(self.client.clone());
        let crd_error = |action, source| MigrationError::Crd {
            crd: crd.to_string(),
            action,
            source,
        };
        let mut conflicts = 0;
        loop {
            let current = crds.get(crd).await.map_err(|e| crd_error("reading", e))?;
            match storage_version(&current) {
                Some(now) if now == storage => {}
                now => {
                    return Err(MigrationError::StorageChanged {
                        crd: crd.to_string(),
                        from: storage.to_string(),
                        to: now.unwrap_or_else(|| "none".into()),
                    });
                }
            }
            let patch = serde_json::json!({
                "metadata": {"resourceVersion": current.metadata.resource_version},
                "status": {"storedVersions": [storage]},
            });
            match crds
                .patch_status(crd, &PatchParams::default(), &Patch::Merge(&patch))
                .await
            {
                Ok(_) => return Ok(()),
                Err(kube::Error::Api(status))
                    if status.code == 409 && conflicts < CONFLICT_RETRIES =>
                {
                    conflicts += 1;
                }
                Err(e) => return Err(crd_error("setting status.storedVersions of", e)),
            }
        }
    }
}

fn storage_version(crd: &CustomResourceDefinition) -> Option<String> {
    crd.spec
        .versions
        .iter()
        .find(|v| v.storage)
        .map(|v| v.name.clone())
}

fn stored_versions(crd: &CustomResourceDefinition) -> Vec<String> {
    crd.status
        .as_ref()
        .and_then(|s| s.stored_versions.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
