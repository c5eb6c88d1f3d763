#ifndef BACKBEAT_CEMBREE_SHIM_H
#define BACKBEAT_CEMBREE_SHIM_H
#include <embree3/rtcore.h>
#include <math.h>

// Embree's ray structures are 16-byte aligned (RTC_ALIGN(16)); building them
// on the C stack here keeps that promise whatever Swift does with imported
// alignment, and lets the compiler inline the call site.

/// Whether anything in `scene` blocks the segment from `origin` along `dir` between tnear and tfar.
static inline int backbeat_rtc_occluded(RTCScene scene, float ox, float oy, float oz, float dx, float dy,
                                        float dz, float tnear, float tfar) {
    struct RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    struct RTCRay ray;
    ray.org_x = ox; ray.org_y = oy; ray.org_z = oz; ray.tnear = tnear;
    ray.dir_x = dx; ray.dir_y = dy; ray.dir_z = dz; ray.time = 0;
    ray.tfar = tfar; ray.mask = 0xFFFFFFFFu; ray.id = 0; ray.flags = 0;
    rtcOccluded1(scene, &context, &ray);
    return ray.tfar < 0 ? 1 : 0;
}

/// The nearest hit of the segment, what a Swift caller needs of it.
typedef struct {
    float t;
    unsigned int geomID;
    unsigned int primID;
    unsigned int instID;
} backbeat_rtc_hit;

/// The nearest surface along the segment; geomID is RTC_INVALID_GEOMETRY_ID when there is none.
static inline backbeat_rtc_hit backbeat_rtc_intersect(RTCScene scene, float ox, float oy, float oz, float dx,
                                                      float dy, float dz, float tnear, float tfar) {
    struct RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    struct RTCRayHit rh;
    rh.ray.org_x = ox; rh.ray.org_y = oy; rh.ray.org_z = oz; rh.ray.tnear = tnear;
    rh.ray.dir_x = dx; rh.ray.dir_y = dy; rh.ray.dir_z = dz; rh.ray.time = 0;
    rh.ray.tfar = tfar; rh.ray.mask = 0xFFFFFFFFu; rh.ray.id = 0; rh.ray.flags = 0;
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.primID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(scene, &context, &rh);
    backbeat_rtc_hit hit = {rh.ray.tfar, rh.hit.geomID, rh.hit.primID, rh.hit.instID[0]};
    return hit;
}

#endif
