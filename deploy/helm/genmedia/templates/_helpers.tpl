{{- define "genmedia.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "genmedia.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "genmedia.labels" -}}
{{ include "genmedia.selectorLabels" . }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The image of the release, or of a draining build: (dict "root" $ "tag" .. "digest" ..). */}}
{{- define "genmedia.imageOf" -}}
{{- $repo := .root.Values.image.repository -}}
{{- if .digest -}}
{{- printf "%s@%s" $repo .digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (required "image.tag or image.digest is required" .tag) -}}
{{- end -}}
{{- end -}}

{{- define "genmedia.image" -}}
{{- include "genmedia.imageOf" (dict "root" . "tag" .Values.image.tag "digest" .Values.image.digest) -}}
{{- end -}}

{{- define "genmedia.taskQueuePrefix" -}}{{ .Values.temporal.taskQueuePrefix }}{{- end -}}

{{- define "genmedia.buildId" -}}
{{- required "workflowWorker.buildId or image.tag is required (the workflow worker's build id)" (.Values.workflowWorker.buildId | default .Values.image.tag) -}}
{{- end -}}

{{/* A DNS-safe name part of a provider id or build id. */}}
{{- define "genmedia.namePart" -}}
{{- . | lower | replace "_" "-" | replace "." "-" | trunc 20 | trimSuffix "-" -}}
{{- end -}}

{{- define "genmedia.podSecurity" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "genmedia.containerSecurity" -}}
securityContext:
  {{- toYaml .Values.containerSecurityContext | nindent 2 }}
{{- end -}}

{{- define "genmedia.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key }}
{{- end -}}

{{/*
The environment of every application process besides the ConfigMap: the credentials by reference.
(dict "root" $ "upstreams" (list of upstream names whose key this process gets) "owner" bool)
*/}}
{{- define "genmedia.env" -}}
{{- $v := .root.Values -}}
{{- include "genmedia.secretEnv" (dict "name" "DATABASE_URL" "secret" $v.database.existingSecret "key" (ternary $v.database.ownerUrlKey $v.database.urlKey (default false .owner))) }}
{{ include "genmedia.secretEnv" (dict "name" "MINIO_ACCESS_KEY" "secret" $v.s3.existingSecret "key" $v.s3.accessKeyKey) }}
{{ include "genmedia.secretEnv" (dict "name" "MINIO_SECRET_KEY" "secret" $v.s3.existingSecret "key" $v.s3.secretKeyKey) }}
{{ include "genmedia.secretEnv" (dict "name" "JOBS_CURSOR_SECRET" "secret" $v.appSecrets.existingSecret "key" $v.appSecrets.cursorSecretKey) }}
{{ include "genmedia.secretEnv" (dict "name" "DESTINATION_SECRET_KEY" "secret" $v.appSecrets.existingSecret "key" $v.appSecrets.destinationSecretKey) }}
{{- if $v.appSecrets.metricsBearerTokenKey }}
{{ include "genmedia.secretEnv" (dict "name" "METRICS_BEARER_TOKEN" "secret" $v.appSecrets.existingSecret "key" $v.appSecrets.metricsBearerTokenKey) }}
{{- end }}
{{- if $v.temporal.apiKey.existingSecret }}
{{ include "genmedia.secretEnv" (dict "name" "TEMPORAL_API_KEY" "secret" $v.temporal.apiKey.existingSecret "key" $v.temporal.apiKey.key) }}
{{- end }}
{{- $credentials := dict "fal" "FAL_KEY" "replicate" "REPLICATE_API_TOKEN" "runway" "RUNWAYML_API_SECRET" "google" "GEMINI_API_KEY" "openai" "OPENAI_API_KEY" }}
{{- range $name := (.upstreams | default list | uniq) }}
{{- $upstream := index $v.upstreams $name }}
{{- if not $upstream }}{{ fail (printf "unknown upstream %q: fal, replicate, runway, google or openai" $name) }}{{ end }}
{{- if $upstream.existingSecret }}
{{ include "genmedia.secretEnv" (dict "name" (index $credentials $name) "secret" $upstream.existingSecret "key" $upstream.key) }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Every upstream with a Secret: the API gets each of them. */}}
{{- define "genmedia.configuredUpstreams" -}}
{{- $names := list -}}
{{- range $name, $upstream := .Values.upstreams -}}
{{- if $upstream.existingSecret }}{{ $names = append $names $name }}{{ end -}}
{{- end -}}
{{- toJson $names -}}
{{- end -}}

{{/* Volumes of an application pod: /tmp, the signing chain, and for a signer (.signs) the signing key. */}}
{{- define "genmedia.volumes" -}}
{{- $v := .root.Values -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ $v.tmpSizeLimit }}
{{- if $v.provenance.enabled }}
- name: provenance-chain
  secret:
    secretName: {{ $v.provenance.chain.existingSecret }}
    items:
      - key: {{ $v.provenance.chain.key }}
        path: chain.pem
{{- if .signs }}
- name: provenance-key
  secret:
    secretName: {{ $v.provenance.signingKey.existingSecret }}
    # Readable by the node user through fsGroup, by no one else.
    defaultMode: 0440
    items:
      - key: {{ $v.provenance.signingKey.key }}
        path: key.pem
{{- end }}
{{- end }}
{{- if $v.temporal.mtls.existingSecret }}
- name: temporal-tls
  secret:
    secretName: {{ $v.temporal.mtls.existingSecret }}
    # Readable by the node user through fsGroup, by no one else.
    defaultMode: 0440
{{- end }}
{{- end -}}

{{- define "genmedia.volumeMounts" -}}
{{- $v := .root.Values -}}
- name: tmp
  mountPath: /tmp
{{- if $v.provenance.enabled }}
- name: provenance-chain
  mountPath: /etc/genmedia/provenance
  readOnly: true
{{- if .signs }}
- name: provenance-key
  mountPath: /etc/genmedia/provenance-key
  readOnly: true
{{- end }}
{{- end }}
{{- if $v.temporal.mtls.existingSecret }}
- name: temporal-tls
  mountPath: /etc/genmedia/temporal-tls
  readOnly: true
{{- end }}
{{- end -}}

{{/* The key's path for the pods that sign (PROVENANCE_PRIVATE_KEY, read by the provider workers only). */}}
{{- define "genmedia.signingEnv" -}}
{{- if .Values.provenance.enabled }}
- name: PROVENANCE_PRIVATE_KEY
  value: /etc/genmedia/provenance-key/key.pem
{{- end }}
{{- end -}}

{{- define "genmedia.envFrom" -}}
envFrom:
  - configMapRef:
      name: {{ include "genmedia.fullname" . }}
{{- end -}}

{{/* A worker's probes: its metrics port, which it opens once it has started. */}}
{{- define "genmedia.workerProbes" -}}
ports:
  - name: metrics
    containerPort: {{ .Values.metrics.port }}
startupProbe:
  tcpSocket:
    port: metrics
  periodSeconds: 5
  failureThreshold: 60
livenessProbe:
  tcpSocket:
    port: metrics
  periodSeconds: 20
  failureThreshold: 3
readinessProbe:
  tcpSocket:
    port: metrics
  periodSeconds: 10
{{- end -}}

{{/* The TriggerAuthentication of the Temporal scalers, when Temporal asks for credentials. */}}
{{- define "genmedia.temporalAuthRef" -}}
{{- if or .Values.temporal.apiKey.existingSecret .Values.temporal.mtls.existingSecret }}
authenticationRef:
  name: {{ include "genmedia.fullname" . }}-temporal
{{- end }}
{{- end -}}
