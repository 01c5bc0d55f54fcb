// Package v1 holds the MyDatabase API (storage version): the Go twin of
// examples/mydatabase-operator.
// +kubebuilder:object:generate=true
// +groupName=db.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	GroupVersion  = schema.GroupVersion{Group: "db.example.com", Version: "v1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
)

// MyDatabaseSpec is the desired state.
type MyDatabaseSpec struct {
	// +kubebuilder:validation:MinLength=1
	Engine string `json:"engine"`
	// +kubebuilder:validation:Minimum=1
	Replicas int32 `json:"replicas"`
	// +optional
	StorageClass *string `json:"storageClass,omitempty"`
}

// MyDatabaseStatus is the observed state.
type MyDatabaseStatus struct {
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// +optional
	Selector string `json:"selector,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=mydb
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.readyReplicas,selectorpath=.status.selector

// MyDatabase is the Schema for the mydatabases API.
type MyDatabase struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MyDatabaseSpec   `json:"spec,omitempty"`
	Status MyDatabaseStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// MyDatabaseList is a list of MyDatabase.
type MyDatabaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MyDatabase `json:"items"`
}
