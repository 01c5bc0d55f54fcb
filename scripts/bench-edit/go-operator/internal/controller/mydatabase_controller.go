package controller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	dbv1 "example.com/bench-operator/api/db/v1"
)

// MyDatabaseReconciler reconciles a MyDatabase object.
type MyDatabaseReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// +kubebuilder:rbac:groups=db.example.com,resources=mydatabases,verbs=list;watch;patch
// +kubebuilder:rbac:groups=db.example.com,resources=mydatabases/status,verbs=patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list;watch;create;patch
// +kubebuilder:rbac:groups="",resources=services,verbs=create;patch

// Reconcile brings a MyDatabase's workload to its spec.
func (r *MyDatabaseReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var db dbv1.MyDatabase
	if err := r.Get(ctx, req.NamespacedName, &db); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	svc := corev1.Service{}
	svc.Name = db.Name
	svc.Namespace = db.Namespace
	_ = r.Create(ctx, &svc)
	return ctrl.Result{}, nil
}

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=patch;create,namespace=db-tenants,roleName=mydatabase-tenant

// PublishTenantConfig writes the tenants' ConfigMap.
func (r *MyDatabaseReconciler) PublishTenantConfig(ctx context.Context) error {
	cm := corev1.ConfigMap{}
	cm.Name = "tenants"
	cm.Namespace = "db-tenants"
	return r.Create(ctx, &cm)
}

// +kubebuilder:rbac:urls=/metrics,verbs=get

// SetupWithManager registers the reconciler.
func (r *MyDatabaseReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("mydatabase").Owns(&appsv1.Deployment{}).Complete(r)
}
