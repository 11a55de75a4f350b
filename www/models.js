// The front end's model registry: one entry per model of the engine's registry (src/models/mod.rs), keyed by
// its id: `view` loads its page view (www/<id>/view.js), `lesson` its lesson panel's content (www/<id>/lesson.js), `workerOps` its own worker operations
// (www/<id>/worker-ops.js, only for models that have some; runs themselves use the shared 'run' operation, and
// the shared worker loads a model's trace or workload), `warmUp` the small run a fresh worker makes while idle
// (www/<id>/warm-up.js, only where its inputs are cheap to make; common/worker.js). The tab list itself comes from the
// engine (wasm.models()); a model the engine lists without an entry here shows as a disabled tab ("soon").
export const MODELS_WWW = {
  placement: { view: () => import('./placement/view.js'), lesson: () => import('./placement/lesson.js'), workerOps: () => import('./placement/worker-ops.js'), warmUp: () => import('./placement/warm-up.js') },
  admission: { view: () => import('./admission/view.js'), lesson: () => import('./admission/lesson.js'), workerOps: () => import('./admission/worker-ops.js') },
  lifetime: { view: () => import('./lifetime/view.js'), lesson: () => import('./lifetime/lesson.js') },
  era: { view: () => import('./era/view.js'), lesson: () => import('./era/lesson.js') },
  oversub: { view: () => import('./oversub/view.js'), lesson: () => import('./oversub/lesson.js') },
};
