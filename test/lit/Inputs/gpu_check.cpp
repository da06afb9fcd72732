// Device check of kilnc PTX (lit test Target/gpu-run.mlir): correctness of
// mix_contig / mix_strided2 (grids 1, 7, 4 x SMs) against a float64
// reference, and saxpy_contig / saxpy_strided2 bandwidth vs D2D copy.
#include <cuda.h>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#define CK(x) do { CUresult rc_ = (x); if (rc_ != CUDA_SUCCESS) { const char *s; cuGetErrorString(rc_, &s); std::printf("%s failed: %s\n", #x, s); std::exit(1);} } while (0)
struct Desc { void *a, *b; int64_t off, sz[4], st[4]; };
Desc desc(CUdeviceptr p, int64_t off, std::vector<int64_t> s, std::vector<int64_t> t) { Desc d{(void*)p,(void*)p,off,{},{}}; for (size_t i=0;i<s.size();++i){d.sz[i]=s[i];d.st[i]=t[i];} return d; }
void pack(std::vector<void*>&a, Desc&d, int R){a.push_back(&d.a);a.push_back(&d.b);a.push_back(&d.off);for(int i=0;i<R;++i)a.push_back(&d.sz[i]);for(int i=0;i<R;++i)a.push_back(&d.st[i]);}
std::string slurp(const char*f){std::ifstream i(f);std::stringstream s;s<<i.rdbuf();return s.str();}
template<class T> CUdeviceptr up(const std::vector<T>&v){CUdeviceptr p;CK(cuMemAlloc(&p,v.size()*sizeof(T)+16));CK(cuMemcpyHtoD(p,v.data(),v.size()*sizeof(T)));return p;}
template<class T> void down(std::vector<T>&v,CUdeviceptr p){CK(cuMemcpyDtoH(v.data(),p,v.size()*sizeof(T)));}
int fails=0;
int main(int argc, char **argv){
  if (argc < 3) { std::printf("usage: gpu_check mix.ptx saxpy.ptx\n"); return 2; }
  CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev,0)); CUcontext ctx; CK(cuCtxCreate(&ctx,nullptr,0,dev));
  int sms; CK(cuDeviceGetAttribute(&sms,CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,dev));
  CUmodule mix, sax; std::string p1=slurp(argv[1]), p2=slurp(argv[2]);
  CK(cuModuleLoadData(&mix,p1.c_str())); CK(cuModuleLoadData(&sax,p2.c_str()));
  std::mt19937_64 rng(1); std::uniform_real_distribution<double> U(-3,3);
  // mix contig and strided2 (broadcast x, transposed y, offsets)
  for (int variant=0; variant<2; ++variant) {
    long rows=variant?1001:1, cols=variant?777:1000003, n=rows*cols;
    std::vector<float> x(variant?cols:n); std::vector<double> y(n); std::vector<uint8_t> m(n+5);
    for(auto&v:x)v=U(rng); for(auto&v:y)v=U(rng); for(auto&v:m)v=rng()%2;
    std::vector<double> r(n+3,-7); std::vector<uint8_t> c(n,7);
    CUdeviceptr dx=up(x),dy=up(y),dm=up(m),dr=up(r),dc=up(c);
    double a=1.25; bool flag=variant; std::vector<void*> args; Desc D[5];
    if(!variant){ D[0]=desc(dx,0,{n},{1});D[1]=desc(dy,0,{n},{1});D[2]=desc(dm,0,{n},{1});D[3]=desc(dr,0,{n},{1});D[4]=desc(dc,0,{n},{1}); }
    else { D[0]=desc(dx,0,{rows,cols},{0,1});D[1]=desc(dy,0,{rows,cols},{1,rows});D[2]=desc(dm,5,{rows,cols},{cols,1});D[3]=desc(dr,3,{rows,cols},{cols,1});D[4]=desc(dc,0,{rows,cols},{cols,1}); }
    for(auto&d:D)pack(args,d,variant?2:1); args.push_back(&a); args.push_back(&flag);
    CUfunction f; CK(cuModuleGetFunction(&f,mix,variant?"mix_strided2":"mix_contig"));
    for (int grid : {1, 7, sms*4}) {
      CK(cuMemcpyHtoD(dr,r.data(),r.size()*8));
      CK(cuLaunchKernel(f,grid,1,1,variant?128:256,1,1,0,0,args.data(),nullptr)); CK(cuCtxSynchronize());
      std::vector<double> gr(n+3); std::vector<uint8_t> gc(n); down(gr,dr); down(gc,dc);
      for(long i=0;i<rows;++i)for(long j=0;j<cols;++j){ long k=i*cols+j;
        double xv=variant?x[j]:x[k], yv=variant?y[j*rows+i]:y[k]; bool mv=variant?m[5+k]:m[k];
        double t=double(float(xv))*a+yv; double wr=mv?std::sqrt(std::fabs(t)):-t; bool wc=(t>1.0)!=flag;
        double got=variant?gr[3+k]:gr[k];
        if(std::fabs(got-wr)>1e-12*(1+std::fabs(wr))||gc[k]!=wc){ if(fails++<5)std::printf("mismatch v%d grid %d at %ld: %g vs %g\n",variant,grid,k,got,wr);} }
    }
    std::printf("mix variant %s checked\n", variant?"strided2":"contig");
  }
  // bandwidth: saxpy on 2^28 floats
  long n=1l<<28; CUdeviceptr x,y,o; CK(cuMemAlloc(&x,n*4));CK(cuMemAlloc(&y,n*4));CK(cuMemAlloc(&o,n*4));
  CK(cuMemsetD32(x,0x3f800000,n)); CK(cuMemsetD32(y,0x40000000,n));
  CUevent e0,e1; CK(cuEventCreate(&e0,0)); CK(cuEventCreate(&e1,0)); float ms;
  auto time=[&](auto fn){ fn(); CK(cuCtxSynchronize()); CK(cuEventRecord(e0,0)); for(int i=0;i<10;++i) fn(); CK(cuEventRecord(e1,0)); CK(cuEventSynchronize(e1)); CK(cuEventElapsedTime(&ms,e0,e1)); return ms/10; };
  double copy=time([&]{ CK(cuMemcpyDtoD(o,x,n*4)); }); double copyGBs=2.0*n*4/copy/1e6;
  std::printf("D2D copy: %.0f GB/s\n", copyGBs);
  float a=3.f;
  for (const char* name : {"saxpy_contig","saxpy_strided1","saxpy_strided2"}) {
    CUfunction f; CK(cuModuleGetFunction(&f,sax,name)); int R = name[6]=='c'?1:(name[13]-'0');
    Desc D[3]; std::vector<void*> args;
    for(int k=0;k<3;++k){ CUdeviceptr p=k==0?x:k==1?y:o; D[k]= R==2? desc(p,0,{1l<<14,1l<<14},{1l<<14,1}) : desc(p,0,{n},{1}); pack(args,D[k],R);} args.push_back(&a);
    for (int grid : {sms*4, sms*16, (int)std::min<long>(n/1024, 1<<20)}) {
      double t=time([&]{ CK(cuLaunchKernel(f,grid,1,1,256,1,1,0,0,args.data(),nullptr)); });
      std::printf("%s grid %d: %.0f GB/s (%.2f of copy)\n", name, grid, 3.0*n*4/t/1e6, 3.0*n*4/t/1e6/copyGBs);
    }
    std::vector<float> h(1000); CK(cuMemcpyDtoH(h.data(),o+ (n-1000)*4,4000)); if(h[999]!=5.f){fails++;std::printf("saxpy wrong %g\n",h[999]);}
  }
  std::printf(fails? "GPU CHECK FAILED\n" : "GPU CHECK OK\n"); return fails?1:0;
}
