build-k2/tuner/fleet/fleet_report.o: tuner/fleet/fleet_report.c \
 tuner/fleet/../../search/stats.h tuner/fleet/../html.h \
 tuner/fleet/store_sql.h /usr/include/postgresql/libpq-fe.h \
 /usr/include/postgresql/postgres_ext.h \
 /usr/include/postgresql/pg_config_ext.h tuner/fleet/fleet.h \
 tuner/fleet/../journal.h tuner/fleet/../knob.h tuner/fleet/../machine.h \
 tuner/fleet/../yamlw.h tuner/fleet/../measure.h \
 tuner/fleet/../../workloads/workload.h \
 tuner/fleet/../../workloads/backend.h \
 tuner/fleet/../../workloads/../common/rt.h \
 tuner/fleet/../../workloads/registry.h tuner/fleet/../machine.h
tuner/fleet/../../search/stats.h:
tuner/fleet/../html.h:
tuner/fleet/store_sql.h:
/usr/include/postgresql/libpq-fe.h:
/usr/include/postgresql/postgres_ext.h:
/usr/include/postgresql/pg_config_ext.h:
tuner/fleet/fleet.h:
tuner/fleet/../journal.h:
tuner/fleet/../knob.h:
tuner/fleet/../machine.h:
tuner/fleet/../yamlw.h:
tuner/fleet/../measure.h:
tuner/fleet/../../workloads/workload.h:
tuner/fleet/../../workloads/backend.h:
tuner/fleet/../../workloads/../common/rt.h:
tuner/fleet/../../workloads/registry.h:
tuner/fleet/../machine.h:
