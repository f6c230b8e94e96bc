// wire.h is all inline (the primitives sit on every hot path); this file
// holds the checks that the codec's assumptions about the platform hold.
#include "db/ignite/wire.h"

#include <climits>

static_assert(CHAR_BIT == 8, "the thin-client protocol is byte-oriented");
static_assert(static_cast<std::int32_t>(0xFFFFFFFFu) == -1, "two's complement narrowing");
