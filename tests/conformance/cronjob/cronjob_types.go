// Package v1 is kube-markers' Go port of the CronJob test type of controller-gen
// (controller-tools pkg/crd/testdata), reduced to the fields the Rust port in
// tests/tests/cronjob_port.rs also has. The test runs the pinned controller-gen on this package
// and compares its CRD with the one kube-markers generates from the Rust types.
//
// +groupName=testdata.kubebuilder.io
// +versionName=v1
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// CronJobSpec is the desired state of a CronJob.
// +kubebuilder:validation:XValidation:rule="has(oldSelf.forbiddenInt) || !has(self.forbiddenInt)",message="forbiddenInt is not allowed",fieldPath=".forbiddenInt",reason="FieldValueForbidden"
type CronJobSpec struct {
	// The schedule in Cron format.
	Schedule string `json:"schedule"`

	// Deadline in seconds for starting the job if it misses its time.
	// +kubebuilder:validation:Minimum=0
	// +optional
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// How to treat concurrent executions.
	// +kubebuilder:validation:Enum=Allow;Forbid;Replace
	// +optional
	ConcurrencyPolicy string `json:"concurrencyPolicy,omitempty"`

	// Suspends subsequent executions.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// How many completed jobs to keep.
	// +kubebuilder:validation:Minimum=0
	// +optional
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`

	// A list of allowed numbers.
	// +kubebuilder:validation:items:Enum=0;1;3
	// +optional
	EnumSlice []int32 `json:"enumSlice,omitempty"`

	// A string of at least four characters.
	// +kubebuilder:validation:MinLength=4
	TwoOfAKindPart0 string `json:"twoOfAKindPart0"`

	// A URL.
	// +kubebuilder:validation:Pattern=`^$|^((https):\/\/?)[^\s()<>]+$`
	PatternObject string `json:"patternObject"`

	// A float with bounds.
	// +kubebuilder:validation:Minimum=-0.5
	// +kubebuilder:validation:Maximum=1.5
	// +kubebuilder:validation:MultipleOf=0.5
	Float64WithValidations float64 `json:"float64WithValidations"`

	// An int32 with bounds.
	// +kubebuilder:validation:Minimum=-2
	// +kubebuilder:validation:Maximum=2
	// +kubebuilder:validation:MultipleOf=2
	Int32WithValidations int32 `json:"int32WithValidations"`

	// An integer, or a string with a pattern.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=11
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:Pattern="^((100|[0-9]{1,2})%|[0-9]+)$"
	// +optional
	IntOrStringWithAPattern *intstr.IntOrString `json:"intOrStringWithAPattern,omitempty"`

	// A string that may be null.
	// +nullable
	CanBeNull string `json:"canBeNull"`

	// A whole Kubernetes object.
	// +kubebuilder:validation:EmbeddedResource
	EmbeddedResource runtime.RawExtension `json:"embeddedResource"`

	// An object that keeps unknown fields.
	// +kubebuilder:pruning:PreserveUnknownFields
	UnprunedJSON NestedObject `json:"unprunedJSON"`

	// A list keyed by name and secondary.
	// +listType=map
	// +listMapKey=name
	// +listMapKey=secondary
	AssociativeList []AssociativeType `json:"associativeList"`

	// Host names, each at most once.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Hosts []string `json:"hosts,omitempty"`

	// A map merged key by key.
	// +mapType=granular
	MapOfInfo map[string]string `json:"mapOfInfo"`

	// A struct replaced as a whole.
	// +structType=atomic
	StructWithSeveralFields NestedObject `json:"structWithSeveralFields"`

	// Exactly two strings.
	// +kubebuilder:validation:MinItems=2
	// +kubebuilder:validation:MaxItems=2
	StringPair []string `json:"stringPair"`

	// A string of even length.
	// +kubebuilder:validation:XValidation:rule="self.size() % 2 == 0",message="must have even length"
	// +kubebuilder:validation:XValidation:rule="true"
	// +optional
	StringWithEvenLength string `json:"stringWithEvenLength,omitempty"`

	// A string of even length, with a computed message.
	// +kubebuilder:validation:XValidation:rule="self.size() % 2 == 0",messageExpression="'Length has to be even but is ' + (self.size() % 2 == 0 ? 'even' : 'odd')"
	// +optional
	StringWithEvenLengthAndMessageExpression string `json:"stringWithEvenLengthAndMessageExpression,omitempty"`

	// Set only by the spec-level rule's permission.
	// +optional
	ForbiddenInt int32 `json:"forbiddenInt,omitempty"`

	// Settable only on update.
	// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || self == 0",message="must be set to zero on creation. can only be modified after",optionalOldSelf=true
	// +optional
	OnlyAllowSettingOnUpdate int32 `json:"onlyAllowSettingOnUpdate,omitempty"`

	// Optional although serde-style it has no omitempty.
	// +kubebuilder:validation:Optional
	ExplicitlyOptionalKubebuilder string `json:"explicitlyOptionalKubebuilder"`

	// Required although it has omitempty.
	// +kubebuilder:validation:Required
	ExplicitlyRequiredKubebuilder string `json:"explicitlyRequiredKubebuilder,omitempty"`

	// An object of one or two properties.
	// +optional
	MinMaxProperties *MinMaxObject `json:"minMaxProperties,omitempty"`

	// Exactly one way to reach a backend.
	// +optional
	Backend *Backend `json:"backend,omitempty"`
}

// NestedObject holds two fields.
type NestedObject struct {
	Foo string `json:"foo"`
	Bar bool   `json:"bar"`
}

// AssociativeType is an item of a list-map.
type AssociativeType struct {
	Name      string `json:"name"`
	Secondary int32  `json:"secondary"`
	Foo       string `json:"foo"`
}

// MinMaxObject has between one and two properties.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:MaxProperties=2
type MinMaxObject struct {
	// +optional
	Foo string `json:"foo,omitempty"`
	// +optional
	Bar string `json:"bar,omitempty"`
	// +optional
	Baz string `json:"baz,omitempty"`
}

// Backend is reached by URL or by service, not both.
// +kubebuilder:validation:ExactlyOneOf=url;serviceName
// +kubebuilder:validation:AtMostOneOf=port;portName
type Backend struct {
	// +optional
	URL *string `json:"url,omitempty"`
	// +optional
	ServiceName *string `json:"serviceName,omitempty"`
	// +optional
	Port *int32 `json:"port,omitempty"`
	// +optional
	PortName *string `json:"portName,omitempty"`
}

// CronJobStatus is the observed state of a CronJob.
type CronJobStatus struct {
	// When the job was last scheduled.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
}

// CronJob is the Schema for the cronjobs API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:singular=mycronjob
// +kubebuilder:storageversion
// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=https://github.com/kubernetes-sigs/controller-tools"
// +kubebuilder:selectablefield:JSONPath=`.spec.schedule`
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CronJobSpec   `json:"spec,omitempty"`
	Status CronJobStatus `json:"status,omitempty"`
}

// CronJobList is a list of CronJobs.
// +kubebuilder:object:root=true
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronJob `json:"items"`
}
