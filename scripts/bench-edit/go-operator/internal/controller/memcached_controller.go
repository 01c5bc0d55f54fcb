// Package controller holds the reconcilers, each with its RBAC markers.
package controller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	cachev1alpha1 "example.com/bench-operator/api/cache/v1alpha1"
)

// MemcachedReconciler reconciles a Memcached object.
type MemcachedReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=list;watch;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list;watch;create;patch

// Reconcile brings a Memcached's Deployment to its spec.
func (r *MemcachedReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	var m cachev1alpha1.Memcached
	if err := r.Get(ctx, req.NamespacedName, &m); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var d appsv1.Deployment
	if err := r.Get(ctx, req.NamespacedName, &d); err != nil {
		logger.Info("deployment not found", "name", req.Name)
	}
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler.
func (r *MemcachedReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("memcached").Owns(&appsv1.Deployment{}).Complete(r)
}
