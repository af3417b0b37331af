/*
 * A stand-in for bcryptprimitives.dll, for Wine 8 only: Go's runtime (1.24
 * and later) draws its random bytes from ProcessPrng, which Wine 8 does not
 * have, so no Go program starts there. ProcessPrng never fails on Windows;
 * RtlGenRandom (advapi32's SystemFunction036) fills at most a ULONG's worth
 * per call, hence the loop. scripts/wine-setup.sh builds it with mingw-w64
 * and copies it into the Wine prefix; it never ships.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
